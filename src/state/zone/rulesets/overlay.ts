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
import {
  isObject,
  optional,
  readArray,
  readObject,
  readString,
  unknownKeys,
  type IssueKind,
  type Read,
} from "../../../shared/validation";
import { err, ok, type Result } from "../../../shared/result";

export interface OverlayLink {
  readonly title: string;
  /** Absolute `https:` or `http:` URL, stored as the WHATWG URL serialisation (no space, `<`, `>` or `"`). */
  readonly href: string;
}

export interface OverlayBranding {
  /** Shown above the error on the HTML page (text, escaped). */
  readonly name?: string;
  /** `data:image/{png|gif|jpeg|webp};base64,…`: shown beside the name, never fetched from elsewhere. */
  readonly logo_url?: string;
  /** `#rrggbb`: the page's brand bar. */
  readonly accent_color?: string;
}

/** What a rule overlays on the error (at least one member). */
export interface Overlay {
  /** Replaces `detail` in every format. */
  readonly detail?: string;
  /** Replaces `what_you_should_do` in every format (on the page: the same Markdown subset as the catalog's). */
  readonly what_you_should_do?: string;
  /** Added as the new member `links` (JSON after `footer`, the frontmatter, the page's "More help"). */
  readonly links?: readonly OverlayLink[];
  /** The HTML page only. */
  readonly branding?: OverlayBranding;
}

/** The limits of an overlay (docs/custom-errors.md "Overlay"; the OpenAPI document restates them). */
export const OVERLAY_LIMITS = {
  detail: 1_024,
  whatYouShouldDo: 2_048,
  links: 5,
  linkTitle: 120,
  href: 2_048,
  brandName: 120,
  /** A small logo inline: at most this many characters of `data:` URI (about 6 KB of image). */
  logoUrl: 8_192,
} as const;

const OVERLAY_FIELDS = new Set(["detail", "what_you_should_do", "links", "branding"]);
const LINK_FIELDS = new Set(["title", "href"]);
const BRANDING_FIELDS = new Set(["name", "logo_url", "accent_color"]);

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, the BOM and lone surrogates: never in operator text
 * (they reorder, hide or break lines in every format). `\n` is allowed in the two paragraph texts only.
 */
const CONTROL =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NEWLINE = /\n/;
const ACCENT = /^#[0-9a-fA-F]{6}$/;
const LOGO = /^data:image\/(?:png|gif|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

type At = (kind: IssueKind, field: string, message: string) => void;

/** Validates `overlay` (reported under `{path}.…`); `undefined` when anything is refused. */
export function parseOverlay(raw: unknown, path: string, at: At): Overlay | undefined {
  const o = readObject(raw, path, "must be an object {detail?, what_you_should_do?, links?, branding?}");
  if (!o.ok) {
    at(o.error.kind, path, o.error.message);
    return undefined;
  }
  let failed = false;
  const fail = (kind: IssueKind, field: string, message: string): void => {
    failed = true;
    at(kind, field, message);
  };
  for (const key of unknownKeys(o.value, OVERLAY_FIELDS))
    fail("unknown-field", `${path}.${key}`, "is not an overlay field");
  const detail = text(o.value.detail, `${path}.detail`, OVERLAY_LIMITS.detail, true, fail);
  const guidance = text(
    o.value.what_you_should_do,
    `${path}.what_you_should_do`,
    OVERLAY_LIMITS.whatYouShouldDo,
    true,
    fail,
  );
  const links = parseLinks(o.value.links, `${path}.links`, fail);
  const branding = parseBranding(o.value.branding, `${path}.branding`, fail);
  if (failed) return undefined;
  if (detail === undefined && guidance === undefined && links === undefined && branding === undefined) {
    at("missing", path, "must set at least one of detail, what_you_should_do, links, branding");
    return undefined;
  }
  return {
    ...(detail === undefined ? {} : { detail }),
    ...(guidance === undefined ? {} : { what_you_should_do: guidance }),
    ...(links === undefined ? {} : { links }),
    ...(branding === undefined ? {} : { branding }),
  };
}

/** Optional text of 1…max characters without control characters (`\n` allowed when `lines`). */
function text(value: unknown, path: string, max: number, lines: boolean, fail: At): string | undefined {
  const read = optional(value, (v) =>
    readString(v, path, { min: 1, max, message: `must be a string of 1 to ${max} characters` }),
  );
  if (!read.ok) {
    fail(read.error.kind, path, read.error.message);
    return undefined;
  }
  if (read.value === undefined) return undefined;
  if (CONTROL.test(read.value) || (!lines && NEWLINE.test(read.value))) {
    fail(
      "invalid",
      path,
      lines
        ? "must not contain control characters (a line break is allowed)"
        : "must not contain control characters or line breaks",
    );
    return undefined;
  }
  if (read.value.trim() === "") {
    fail("invalid", path, "must not be only white space");
    return undefined;
  }
  return read.value;
}

function parseLinks(value: unknown, path: string, fail: At): OverlayLink[] | undefined {
  if (value === undefined) return undefined;
  const max = OVERLAY_LIMITS.links;
  const list = readArray(value, path, { min: 1, max, message: `must be a list of 1 to ${max} links {title, href}` });
  if (!list.ok) {
    fail(list.error.kind, path, list.error.message);
    return undefined;
  }
  const links: OverlayLink[] = [];
  for (const [i, item] of list.value.entries()) {
    const at = `${path}[${i}]`;
    if (!isObject(item)) {
      fail("wrong-type", at, "must be an object {title, href}");
      continue;
    }
    for (const key of unknownKeys(item, LINK_FIELDS)) fail("unknown-field", `${at}.${key}`, "is not a link field");
    const title =
      item.title === undefined
        ? missing(`${at}.title`, fail)
        : text(item.title, `${at}.title`, OVERLAY_LIMITS.linkTitle, false, fail);
    const href = item.href === undefined ? missing(`${at}.href`, fail) : webUrl(item.href, `${at}.href`, fail);
    if (title !== undefined && href !== undefined) links.push({ title, href });
  }
  return links.length === list.value.length ? links : undefined;
}

function missing(path: string, fail: At): undefined {
  fail("missing", path, "is required");
  return undefined;
}

/** An absolute `https:`/`http:` URL with a host and no credentials, as its serialisation. */
function webUrl(value: unknown, path: string, fail: At): string | undefined {
  const max = OVERLAY_LIMITS.href;
  const read: Read<string> = readString(value, path, {
    min: 1,
    max,
    message: `must be a URL of at most ${max} characters`,
  });
  if (!read.ok) {
    fail(read.error.kind, path, read.error.message);
    return undefined;
  }
  const parsed = parseUrl(read.value);
  if (!parsed.ok) {
    fail("invalid", path, parsed.error);
    return undefined;
  }
  return parsed.value;
}

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

function parseBranding(value: unknown, path: string, fail: At): OverlayBranding | undefined {
  if (value === undefined) return undefined;
  const b = readObject(value, path, "must be an object {name?, logo_url?, accent_color?}");
  if (!b.ok) {
    fail(b.error.kind, path, b.error.message);
    return undefined;
  }
  for (const key of unknownKeys(b.value, BRANDING_FIELDS))
    fail("unknown-field", `${path}.${key}`, "is not a branding field");
  const name = text(b.value.name, `${path}.name`, OVERLAY_LIMITS.brandName, false, fail);
  let logo: string | undefined;
  if (b.value.logo_url !== undefined) {
    const max = OVERLAY_LIMITS.logoUrl;
    if (typeof b.value.logo_url !== "string" || b.value.logo_url.length > max || !LOGO.test(b.value.logo_url))
      fail(
        typeof b.value.logo_url === "string" && b.value.logo_url.length > max ? "out-of-range" : "invalid",
        `${path}.logo_url`,
        `must be a data:image/(png|gif|jpeg|webp);base64 URI of at most ${max} characters (the page makes no ` +
          "external request, docs/errors.md)",
      );
    else logo = b.value.logo_url;
  }
  let accent: string | undefined;
  if (b.value.accent_color !== undefined) {
    if (typeof b.value.accent_color !== "string" || !ACCENT.test(b.value.accent_color))
      fail("invalid", `${path}.accent_color`, "must be a colour #rrggbb");
    else accent = b.value.accent_color.toLowerCase();
  }
  if (name === undefined && logo === undefined && accent === undefined) {
    if (Object.keys(b.value).length === 0)
      fail("missing", path, "must set at least one of name, logo_url, accent_color");
    return undefined;
  }
  return {
    ...(name === undefined ? {} : { name }),
    ...(logo === undefined ? {} : { logo_url: logo }),
    ...(accent === undefined ? {} : { accent_color: accent }),
  };
}

/**
 * `action_parameters` holding `overlay` (validate.ts hands them here): `overlay` alone. Fixed content and an
 * overlay exclude each other, and the overlay keeps the error's status (the body's `status` and the response's
 * must agree), so `content`, `asset_name`, `content_type` and `status_code` are refused beside it, each by name,
 * and any other key as unknown.
 */
export function parseOverlayParameters(
  parameters: Readonly<Record<string, unknown>>,
  at: At,
): { readonly overlay: Overlay } | undefined {
  const reasons: Readonly<Record<string, string>> = {
    content: "cannot be used with overlay: a rule serves either fixed content or an overlay of the structured error",
    asset_name: "cannot be used with overlay: a rule serves either an asset or an overlay of the structured error",
    content_type: "cannot be used with overlay: the overlaid error keeps the negotiated format",
    status_code: "cannot be used with overlay: the overlaid error keeps its status",
  };
  let refused = false;
  for (const key of Object.keys(parameters)) {
    if (key === "overlay") continue;
    const reason = reasons[key];
    if (reason === undefined) at("unknown-field", `action_parameters.${key}`, "is not a parameter of serve_error");
    else at("not-allowed", `action_parameters.${key}`, reason);
    refused = true;
  }
  const overlay = parseOverlay(parameters.overlay, "action_parameters.overlay", at);
  return refused || overlay === undefined ? undefined : { overlay };
}
