/**
 * `action_parameters.overlay` of a custom error rule (docs/custom-errors.md "a rule may instead overlay the structured
 * error", docs/differences.md): instead of replacing the body with fixed content, the rule gives the structured error its
 * own texts, links and page branding, and the service keeps negotiation, every machine field, retry hints and
 * headers (docs/custom-errors.md "Overlay"). Pure, no bindings: the stored shape and its validator.
 *
 * Every value is operator text that reaches every client: bounded in length, no control characters (a line break
 * only where text may have paragraphs), links only `https:`/`http:` without credentials, the logo only an inline
 * `data:` image (docs/errors.md: the page makes no external request).
 */
import * as z from "zod/mini";
import { absent, described, fields, later, named, type Output } from "../../../shared/schema";
import { err, ok, type Result } from "../../../shared/result";

/** The limits of an overlay (docs/custom-errors.md "Overlay"; the OpenAPI document states them from the schema). */
const OVERLAY_LIMITS = {
  detail: 1_024,
  whatYouShouldDo: 2_048,
  links: 5,
  linkTitle: 120,
  href: 2_048,
  brandName: 120,
  /** A small logo inline: at most this many characters of `data:` URI (about 6 KB of image). */
  logoUrl: 8_192,
} as const;

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, the BOM and lone surrogates: never in operator text
 * (they reorder, hide or break lines in every format). `\n` is allowed in the two paragraph texts only.
 */
const CONTROL =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NEWLINE = /\n/;
const ACCENT = /^#[0-9a-fA-F]{6}$/;
const LOGO = /^data:image\/(?:png|gif|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

/** A required field left out is named as such; any other refusal gets the field's own wording. */
const orRequired =
  (message: string) =>
  (issue: { readonly input?: unknown }): string =>
    issue.input === undefined ? "is required" : message;

/**
 * Text of 1…max characters without control characters (`\n` allowed when `lines`), not only white space: the
 * first refusal only (each check aborts the next), as one field has one thing wrong at a time.
 */
function operatorText(max: number, lines: boolean, required = false) {
  const length = `must be a string of 1 to ${max} characters`;
  return z.string({ error: required ? orRequired(length) : length }).check(
    z.minLength(1, { error: length, abort: true }),
    z.maxLength(max, { error: length, abort: true }),
    z.refine((text) => !CONTROL.test(text) && (lines || !NEWLINE.test(text)), {
      error: lines
        ? "must not contain control characters (a line break is allowed)"
        : "must not contain control characters or line breaks",
      abort: true,
    }),
    z.refine((text) => text.trim() !== "", { error: "must not be only white space" }),
  );
}

/** An absolute `https:`/`http:` URL with a host and no credentials, stored as its serialisation. */
const URL_LENGTH = `must be a URL of at most ${OVERLAY_LIMITS.href} characters`;
const webUrl = () =>
  z.pipe(
    described(
      z.string({ error: orRequired(URL_LENGTH) }).check(
        z.minLength(1, { error: URL_LENGTH, abort: true }),
        z.maxLength(OVERLAY_LIMITS.href, { error: URL_LENGTH, abort: true }),
        z.superRefine((text, context) => {
          const parsed = parseUrl(text);
          if (!parsed.ok) context.issues.push({ code: "custom", message: parsed.error, input: text });
        }),
      ),
      "An absolute https: or http: URL without credentials; stored as its serialisation",
    ),
    z.transform((text: string) => new URL(text).href),
  );

const link = () =>
  fields(
    { title: operatorText(OVERLAY_LIMITS.linkTitle, false, true), href: webUrl() },
    "is not a link field",
    "must be an object {title, href}",
  );

const LINKS_MESSAGE = `must be a list of 1 to ${OVERLAY_LIMITS.links} links {title, href}`;
const LOGO_MESSAGE =
  `must be a data:image/(png|gif|jpeg|webp);base64 URI of at most ${OVERLAY_LIMITS.logoUrl} characters (the page ` +
  "makes no external request, docs/errors.md)";

const branding = () =>
  fields(
    {
      /** Shown above the error on the HTML page (text, escaped). */
      name: z.optional(operatorText(OVERLAY_LIMITS.brandName, false)),
      /** Shown beside the name, never fetched from elsewhere. */
      logo_url: z.optional(
        described(
          z
            .string({ error: LOGO_MESSAGE })
            .check(
              z.maxLength(OVERLAY_LIMITS.logoUrl, { error: LOGO_MESSAGE, abort: true }),
              z.regex(LOGO, { error: LOGO_MESSAGE }),
            ),
          "An inline image only: the page makes no external request (docs/errors.md)",
        ),
      ),
      /** The page's brand bar, stored lower-case. */
      accent_color: z.optional(
        z.pipe(
          z.string({ error: "must be a colour #rrggbb" }).check(z.regex(ACCENT, { error: "must be a colour #rrggbb" })),
          z.transform((colour: string) => colour.toLowerCase()),
        ),
      ),
    },
    "is not a branding field",
    "must be an object {name?, logo_url?, accent_color?}",
  ).check(
    z.refine((branding) => Object.keys(branding).length > 0, {
      error: "must set at least one of name, logo_url, accent_color",
    }),
  );

/** What a rule overlays on the error (at least one member). */
export const OVERLAY = later(() =>
  named(
    fields(
      {
        detail: z.optional(described(operatorText(OVERLAY_LIMITS.detail, true), "Replaces `detail` in every format")),
        what_you_should_do: z.optional(
          described(
            operatorText(OVERLAY_LIMITS.whatYouShouldDo, true),
            "Replaces `what_you_should_do` in every format; on the page: paragraphs, numbered and bulleted lists " +
              "and **bold**, like the catalog's texts",
          ),
        ),
        links: z.optional(
          described(
            z
              .array(link(), { error: LINKS_MESSAGE })
              .check(
                z.minLength(1, { error: LINKS_MESSAGE }),
                z.maxLength(OVERLAY_LIMITS.links, { error: LINKS_MESSAGE }),
              ),
            'A new member `links`: JSON after `footer`, the Markdown frontmatter, the page\'s "More help"',
          ),
        ),
        branding: z.optional(described(branding(), "The HTML page only")),
      },
      "is not an overlay field",
      "must be an object {detail?, what_you_should_do?, links?, branding?}",
    ).check(
      z.refine((overlay) => Object.keys(overlay).length > 0, {
        error: "must set at least one of detail, what_you_should_do, links, branding",
      }),
    ),
    {
      id: "Overlay",
      description:
        "What a custom error rule overlays on the structured error (this service's addition, docs/differences.md). " +
        "Text is operator text: never HTML (escaped on the page, quoted in YAML, markup-escaped in the Markdown " +
        "body); no control characters (a line break only in `detail` and `what_you_should_do`).",
    },
  ),
);

export type Overlay = Output<typeof OVERLAY>;

/**
 * `action_parameters` holding `overlay` (validate.ts reads them with this): `overlay` alone. Fixed content and an overlay
 * exclude each other, and the overlay keeps the error's status (the body's `status` and the response's must agree),
 * so `content`, `asset_name`, `content_type` and `status_code` are refused beside it, each by name, and any other
 * key as unknown; then the overlay's own fields.
 */
export const OVERLAY_PARAMETERS = later(() =>
  fields(
    {
      content: absent(
        "cannot be used with overlay: a rule serves either fixed content or an overlay of the structured error",
      ),
      asset_name: absent(
        "cannot be used with overlay: a rule serves either an asset or an overlay of the structured error",
      ),
      content_type: absent("cannot be used with overlay: the overlaid error keeps the negotiated format"),
      status_code: absent("cannot be used with overlay: the overlaid error keeps its status"),
      overlay: OVERLAY(),
    },
    "is not a parameter of serve_error",
  ),
);

function parseUrl(text: string): Result<string, string> {
  if (CONTROL.test(text) || /\s/.test(text)) return err("must be an absolute https: or http: URL without spaces");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return err("must be an absolute https: or http: URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return err("must be an https: or http: URL");
  if (url.username !== "" || url.password !== "") return err("must not carry a user name or password");
  if (url.href.length > OVERLAY_LIMITS.href) return err(`must be at most ${OVERLAY_LIMITS.href} characters`);
  return ok(url.href);
}
