/**
 * Inlining a custom error asset (the published custom error documentation, https://developers.cloudflare.com/rules/custom-errors/: "fetched once, images/CSS inlined"), pure: find what an
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
import { escapeHtml } from "../../shared/html-escape";

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

/** A linked stylesheet as fetched: its text, and what its own `url(…)`s (resolved against it) become. */
export interface LinkedStylesheet {
  readonly css: string;
  readonly dataUri: (reference: string) => string | null;
}

/**
 * What a reference became: the resolver answers `null` for a reference left as written (not in scope, not
 * fetched), else the stylesheet or the data URI.
 */
export interface Inlined {
  /** The stylesheet a page reference names (inlined into the page here, within the page's limit). */
  stylesheet(reference: string): LinkedStylesheet | null;
  /** A `data:` URI for the resource (an image, a font) a page reference names. */
  dataUri(reference: string): string | null;
}

/**
 * The rewritten page, or where the rewriting stopped: `atLeast` is a lower bound of the page's UTF-8 size (the
 * output counted in UTF-16 code units, each at least one UTF-8 byte) once it passed the limit.
 */
export type InlinedPage =
  { readonly kind: "inlined"; readonly html: string } | { readonly kind: "too-large"; readonly atLeast: number };

/**
 * The output as it is built, counted as it grows: a piece that takes it past `limit` is not kept and the caller
 * stops, so the memory and work of a rewrite are bounded by the limit whatever the page references (one 500 KB image
 * referenced 200 times would otherwise be a 133 MB page before any size check). Counted in UTF-16 code units: never
 * more than the UTF-8 bytes, so a page that fits is never stopped; the exact size is the caller's to check on the
 * (bounded) result.
 */
class Output {
  private readonly pieces: string[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  /** Appends `piece`; false (nothing kept) once the output would pass the limit. */
  add(piece: string): boolean {
    this.length += piece.length;
    if (this.length > this.limit) return false;
    this.pieces.push(piece);
    return true;
  }

  get size(): number {
    return this.length;
  }

  text(): string {
    return this.pieces.join("");
  }
}

/** The page with its stylesheets and images inlined (`resolve` answers per reference), stopped past `limit`. */
export function inlinePage(html: string, resolve: Inlined, limit = Number.POSITIVE_INFINITY): InlinedPage {
  const out = new Output(limit);
  const tooLarge = (): InlinedPage => ({ kind: "too-large", atLeast: out.size });
  let written = 0;
  for (const m of html.matchAll(HTML_PARTS)) {
    if (!out.add(html.slice(written, m.index))) return tooLarge();
    written = m.index + m[0].length;
    const [whole, open, css, close, tag, attrText] = m;
    if (open !== undefined && css !== undefined && close !== undefined) {
      if (!out.add(open) || !writeCss(css, (ref) => resolve.dataUri(ref), out, false) || !out.add(close))
        return tooLarge();
      continue;
    }
    if (!out.add(tag === undefined ? whole : rewriteTag(tag, attrText ?? "", whole, resolve, out))) return tooLarge();
  }
  return out.add(html.slice(written)) ? { kind: "inlined", html: out.text() } : tooLarge();
}

/**
 * A `<link>` or `<img>` tag rewritten. A stylesheet is written into `out` here, piece by piece (its text can be
 * large, and linked any number of times), and `""` returned; anything else is returned for the caller to add.
 */
function rewriteTag(tag: string, attrText: string, whole: string, resolve: Inlined, out: Output): string {
  const attrs = attributes(attrText);
  const get = (name: string): string | null => attrs.find((a) => a.name === name)?.value ?? null;
  if (tag.toLowerCase() === "link") {
    const href = get("href");
    if (!isStylesheet(attrs) || href === null) return whole;
    const sheet = resolve.stylesheet(href);
    if (sheet === null) return whole;
    const media = get("media");
    // Past the limit, the next piece the caller adds fails too (the count only grows): no separate answer needed.
    const fits =
      out.add(`<style${media === null ? "" : ` media="${escapeHtml(media)}"`}>`) &&
      writeCss(sheet.css, sheet.dataUri, out, true);
    return fits ? "</style>" : whole;
  }
  const src = get("src");
  const uri = src === null ? null : resolve.dataUri(src);
  if (uri === null) return whole;
  const kept = attrs.filter((a) => a.name !== "src" && a.name !== "srcset").map((a) => ` ${a.raw}`);
  const selfClosing = /\/\s*$/.test(attrText);
  return `<img src="${uri}"${kept.join("")}${selfClosing ? " />" : ">"}`;
}

/**
 * Writes a stylesheet into `out` with its `url(…)`s rewritten to what `dataUri` gives (a reference it answers
 * `null` for is kept); false once past the limit. `escape`: the text goes inside a `<style>` element the page did
 * not have, so a `</style` in it is escaped (HTML's raw text rule); each piece is escaped alone, which is the same
 * as escaping the whole, since a `url(…)` piece starts with `u` and ends with `)`, neither in `</style`.
 */
function writeCss(css: string, dataUri: (reference: string) => string | null, out: Output, escape: boolean): boolean {
  const add = (piece: string): boolean => out.add(escape ? styleText(piece) : piece);
  let written = 0;
  for (const m of css.matchAll(CSS_URL)) {
    if (!add(css.slice(written, m.index))) return false;
    written = m.index + m[0].length;
    const reference = unescapeCss(m[1] ?? m[2] ?? m[3] ?? "");
    const uri = reference === "" ? null : dataUri(reference);
    if (!add(uri === null ? m[0] : `url("${uri}")`)) return false;
  }
  return add(css.slice(written));
}

/** A stylesheet's `url(…)`s rewritten to what `dataUri` gives; `null` once the result would pass `limit`. */
export function inlineCss(
  css: string,
  dataUri: (reference: string) => string | null,
  limit = Number.POSITIVE_INFINITY,
): string | null {
  const out = new Output(limit);
  return writeCss(css, dataUri, out, false) ? out.text() : null;
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
