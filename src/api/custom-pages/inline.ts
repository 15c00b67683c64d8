/**
 * Inlining a custom error asset (notes/platform-2026.md C2: "fetched once, images/CSS inlined"), pure: find what an
 * HTML page links, then rewrite it with what was fetched, so the stored page needs nothing from the origin (it is
 * served precisely when the origin may be down). docs/custom-errors.md "What is inlined":
 *
 * - `<link rel="stylesheet" href>` → `<style>` with the stylesheet's text (its `media` kept);
 * - `<img src>` → `src="data:…;base64,…"` (its `srcset` dropped, which would load other files from the origin);
 * - CSS `url(…)` in `<style>` blocks and inlined stylesheets → `url("data:…")`, resolved against the stylesheet.
 *
 * Not inlined, left as written: scripts, `@import`, `style="…"` attributes, anything inside comments or `<script>`,
 * and every reference that is not a URL the asset may fetch (another host, `data:`, a fragment): `resolve` decides.
 * Written with regular expressions over a tag grammar (quoted attribute values may hold `>`), not a full HTML parser:
 * what it does not recognise it leaves unchanged, so the worst case is a reference not inlined, never a broken page.
 */

/** Comments and scripts (skipped), style blocks (their CSS rewritten), link and img tags. */
const HTML_PARTS =
  /<!--[\s\S]*?-->|<script\b[\s\S]*?<\/script\s*>|(<style\b(?:[^>"']|"[^"]*"|'[^']*')*>)([\s\S]*?)(<\/style\s*>)|<(link|img)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const CSS_URL = /url\(\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|([^)"'\s]*))\s*\)/gi;

interface Attribute {
  readonly name: string;
  readonly value: string | null;
  readonly raw: string;
}

function attributes(text: string): Attribute[] {
  const found: Attribute[] = [];
  for (const m of text.matchAll(ATTRIBUTE)) {
    const value = m[2] ?? m[3] ?? m[4];
    found.push({ name: m[1]!.toLowerCase(), value: value === undefined ? null : decodeEntities(value), raw: m[0] });
  }
  return found;
}

/** The character references a URL in an attribute commonly holds. */
function decodeEntities(value: string): string {
  return value.replace(/&(amp|quot|apos|lt|gt|#39|#x27);/gi, (_, name: string) => {
    switch (name.toLowerCase()) {
      case "amp":
        return "&";
      case "quot":
        return '"';
      case "lt":
        return "<";
      case "gt":
        return ">";
      default:
        return "'";
    }
  });
}

const escapeAttribute = (value: string): string => value.replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** What a page links: `[reference, base]` pairs (base `null`: the page itself). */
export interface PageLinks {
  readonly stylesheets: readonly string[];
  readonly images: readonly string[];
  /** `url(…)` references in the page's own `<style>` blocks. */
  readonly cssUrls: readonly string[];
}

const isStylesheet = (attrs: readonly Attribute[]): boolean =>
  attrs.some((a) => a.name === "rel" && (a.value ?? "").toLowerCase().split(/\s+/).includes("stylesheet"));

/** The references of an HTML page that the asset may inline, as written (not yet resolved). */
export function pageLinks(html: string): PageLinks {
  const stylesheets: string[] = [];
  const images: string[] = [];
  const css: string[] = [];
  for (const m of html.matchAll(HTML_PARTS)) {
    if (m[2] !== undefined) css.push(...cssLinks(m[2]));
    const tag = m[4]?.toLowerCase();
    if (tag === undefined) continue;
    const attrs = attributes(m[5] ?? "");
    const get = (name: string): string | null => attrs.find((a) => a.name === name)?.value ?? null;
    if (tag === "link" && isStylesheet(attrs)) {
      const href = get("href");
      if (href !== null) stylesheets.push(href);
    } else if (tag === "img") {
      const src = get("src");
      if (src !== null) images.push(src);
    }
  }
  return { stylesheets, images, cssUrls: css };
}

/** The `url(…)` references of a stylesheet, as written. */
export function cssLinks(css: string): string[] {
  return [...css.matchAll(CSS_URL)].map((m) => unescapeCss(m[1] ?? m[2] ?? m[3] ?? "")).filter((u) => u !== "");
}

const unescapeCss = (value: string): string => value.replace(/\\(.)/g, "$1");

/**
 * What a reference became: the resolver answers `null` for a reference left as written (not in scope, not
 * fetched), else the stylesheet text or the data URI.
 */
export interface Inlined {
  /** The text of the stylesheet a page reference names, its own `url(…)`s already rewritten. */
  stylesheet(reference: string): string | null;
  /** A `data:` URI for the resource (an image, a font) a page reference names. */
  dataUri(reference: string): string | null;
}

/** The page with its stylesheets and images inlined (`resolve` answers per reference). */
export function inlinePage(html: string, resolve: Inlined): string {
  return html.replace(
    HTML_PARTS,
    (whole, open?: string, css?: string, close?: string, tag?: string, attrText?: string) => {
      if (open !== undefined && css !== undefined && close !== undefined)
        return open + inlineCss(css, (ref) => resolve.dataUri(ref)) + close;
      if (tag === undefined) return whole;
      const attrs = attributes(attrText ?? "");
      const get = (name: string): string | null => attrs.find((a) => a.name === name)?.value ?? null;
      if (tag.toLowerCase() === "link") {
        const href = get("href");
        if (!isStylesheet(attrs) || href === null) return whole;
        const text = resolve.stylesheet(href);
        if (text === null) return whole;
        const media = get("media");
        return `<style${media === null ? "" : ` media="${escapeAttribute(media)}"`}>${styleText(text)}</style>`;
      }
      const src = get("src");
      const uri = src === null ? null : resolve.dataUri(src);
      if (uri === null) return whole;
      const kept = attrs.filter((a) => a.name !== "src" && a.name !== "srcset").map((a) => ` ${a.raw}`);
      const selfClosing = /\/\s*$/.test(attrText ?? "");
      return `<img src="${uri}"${kept.join("")}${selfClosing ? " />" : ">"}`;
    },
  );
}

/** A stylesheet's `url(…)`s rewritten to what `dataUri` gives (a reference it answers `null` for is kept). */
export function inlineCss(css: string, dataUri: (reference: string) => string | null): string {
  return css.replace(CSS_URL, (whole, double?: string, single?: string, bare?: string) => {
    const reference = unescapeCss(double ?? single ?? bare ?? "");
    const uri = reference === "" ? null : dataUri(reference);
    return uri === null ? whole : `url("${uri}")`;
  });
}

/** CSS inside `<style>`: a `</style` in it would end the element early (HTML's raw text rule), so it is escaped. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}

/** `data:{type};base64,…`; a type that is not a plain `type/subtype` token becomes `application/octet-stream`. */
export function dataUri(contentType: string | null, bytes: Uint8Array): string {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const type = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(media) ? media : "application/octet-stream";
  return `data:${type};base64,${base64(bytes)}`;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}
