/**
 * A structured error overlaid by a custom error rule (docs/custom-errors.md "a rule may instead overlay the structured
 * error … and keep negotiation, machine fields, retry hints and headers", docs/differences.md; docs/custom-errors.md
 * "Overlay"). The rule's texts replace `detail` and `what_you_should_do`; its links become the new member `links`
 * (JSON and the page's island after `footer`, the frontmatter after `what_you_should_do`); its branding dresses the
 * HTML page only. Every other field, the status, the negotiated format and every header (`Ray-ID`, `Retry-After`,
 * `Proxy-Status`, `Vary`, `Cache-Control`, `nosniff`) stay the service's: the answer is still its structured error.
 *
 * The default path is untouched (its per-code templates, occurrence-template.ts); an overlay is rendered in full by
 * the same renderers, from what `prepareOverlay` built once per compiled rule (the brand bar, its stylesheet and the
 * page's policy). Pure but for the policy's hash (WebCrypto), computed once per rule and then kept.
 */
import type { ErrorFields, ErrorLink } from "./fields";
import type { ErrorFormat } from "./format";
import type { Words } from "./languages/words";
import { brandStyle, renderBrand, renderPage, type PageOverlay } from "./render-html";
import { renderMarkdownOverlaid } from "./render-markdown";

/** What a rule overlays (validated when written: src/state/zone/rulesets/overlay.ts). */
export interface ErrorOverlay {
  readonly detail?: string;
  readonly what_you_should_do?: string;
  readonly links?: readonly ErrorLink[];
  readonly branding?: {
    readonly name?: string;
    readonly logo_url?: string;
    readonly accent_color?: string;
  };
}

/** The fields of an overlaid error: the 17 in their order, then `links` when the overlay has some. */
export type OverlaidFields = ErrorFields & { readonly links?: readonly ErrorLink[] };

/** An overlay made ready once per compiled rule (src/edge/custom-errors/compiled.ts). */
export class PreparedOverlay {
  readonly page: PageOverlay;
  /** The page's CSP once known (null: the default page's policy applies, or it is not computed yet). */
  #policy: string | null = null;
  #pending: Promise<string> | null = null;

  constructor(readonly overlay: ErrorOverlay) {
    const b = overlay.branding;
    this.page = {
      ...(overlay.links === undefined ? {} : { links: overlay.links }),
      ...(b === undefined ? {} : { brand: renderBrand(b.name, b.logo_url), style: brandStyle(b.accent_color) }),
    };
  }

  /** Whether the overlaid page needs a CSP of its own (a brand stylesheet, a `data:` logo), else the default fits. */
  get hasOwnPolicy(): boolean {
    return this.page.style !== undefined;
  }

  /** The page's own CSP once computed (every use after the first), else `null` (`policy`). */
  policyKnown(): string | null {
    return this.#policy;
  }

  /** The page's own CSP, computed once (only asked when `hasOwnPolicy`). */
  policy(
    /** headers.ts `pagePolicy`, passed in so this module stays free of the runtime's Response types (Node bench). */
    compute: (style: string, dataImages: boolean) => Promise<string>,
  ): Promise<string> {
    this.#pending ??= compute(this.page.style ?? "", this.overlay.branding?.logo_url !== undefined).then(
      (p) => (this.#policy = p),
    );
    return this.#pending;
  }
}

/** The error's fields with the overlay's texts in place and `links` appended (JSON key order: docs/errors.md + 1). */
export function overlaidFields(f: ErrorFields, overlay: ErrorOverlay): OverlaidFields {
  // A spread keeps every key of `f` where it is (replaced values included); `links` comes after `footer`.
  const fields = {
    ...f,
    detail: overlay.detail ?? f.detail,
    what_you_should_do: overlay.what_you_should_do ?? f.what_you_should_do,
  };
  return overlay.links === undefined ? fields : { ...fields, links: overlay.links };
}

/**
 * The overlaid error's body in the negotiated format, its service's words (headings, labels) in the request's
 * language; the operator's texts stay as written (docs/languages.md "Custom rules and pages").
 */
export function renderOverlaid(
  f: OverlaidFields,
  format: ErrorFormat,
  prepared: PreparedOverlay,
  words: Words,
): string {
  switch (format) {
    case "json":
    case "problem+json":
      return JSON.stringify(f);
    case "markdown":
      return renderMarkdownOverlaid(f, f.links, words);
    case "html":
      return renderPage(f, prepared.page, words);
  }
}
