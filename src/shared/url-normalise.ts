/**
 * URL normalisation before rules (docs/rules-language.md), as the published platform does it
 * (developers.cloudflare.com/rules/normalization/how-it-works/, …/settings/, …/examples/). Pure: no bindings.
 *
 * Type `rfc3986` (RFC 3986 §6.2.2):
 *   - percent-encoded unreserved characters (`A–Z a–z 0–9 - . _ ~`, §2.3) are decoded;
 *   - reserved characters (`: / ? # [ ] @ ! $ & ' ( ) * + , ; =`, §2.2) are neither encoded nor decoded, so `%2F`
 *     (slash), `%5C` (backslash) and `%25` (percent) stay encoded;
 *   - other characters (controls, space, `"<>\^\`{|}`, bytes outside ASCII as UTF-8) are percent-encoded;
 *   - the hex digits of every percent-encoding are upper-cased (§6.2.2.1);
 *   - dot segments are removed (§5.2.4, §6.2.2.3), after decoding, so `%2e%2e` is a `..` segment.
 * Type `cloudflare`: first backslashes become forward slashes, then runs of forward slashes are merged into one,
 * then the `rfc3986` steps.
 *
 * Decisions where the published reference says nothing (docs/rules-language.md):
 *   - only the path is normalised; the query is left as sent (the reference's examples and its announcement
 *     speak of URI paths; `http.request.uri.query` and `uri.args` are documented as "not decoded");
 *   - a `%` not followed by two hex digits (`%zz`, a trailing `%`) encodes nothing, so it is one of the "other
 *     characters" and is itself encoded (`%25zz`): rules never see it pair up with what follows after a decoding
 *     (`/%%341` would otherwise become `/%41`), and normalising twice changes nothing;
 *   - nothing is decoded twice (`%2561` is `%2561`, one pass, as RFC 3986 §2.4 requires).
 * Linear in the path's length: one scan, then one pass over the segments.
 */

export const URL_NORMALIZATION_TYPES = ["cloudflare", "rfc3986"] as const;
export const URL_NORMALIZATION_SCOPES = ["incoming", "both", "none"] as const;
export type UrlNormalizationType = (typeof URL_NORMALIZATION_TYPES)[number];
export type UrlNormalizationScope = (typeof URL_NORMALIZATION_SCOPES)[number];

/** A zone's setting, the published `{scope, type}` of `/zones/{zone}/url_normalization`. */
export interface UrlNormalization {
  /** `incoming`: rules see the normalised URL, the origin the original; `both`: the origin too; `none`: off. */
  readonly scope: UrlNormalizationScope;
  readonly type: UrlNormalizationType;
}

/** What a zone without a stored setting gets (the published API's defaults, docs/rules-language.md). */
export const DEFAULT_URL_NORMALIZATION: UrlNormalization = Object.freeze({ scope: "incoming", type: "cloudflare" });

/** ASCII characters kept as they are: unreserved and reserved (RFC 3986 §2.2–2.3); `%` is handled apart. */
const KEPT = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=") {
  KEPT[c.charCodeAt(0)] = 1;
}
/** A path that no step changes: kept characters only, no `%`, no `\`, no `//`, no `.`/`..` segment. */
const ALREADY_NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9\-._~:@!$&'()*+,;=]+)*\/?$/;

const HEX = "0123456789ABCDEF";

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
  if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
  return -1;
}

function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x7e
  );
}

/** `%XX` of each UTF-8 byte of one code point (a lone surrogate is U+FFFD, as UTF-8 encoders write it). */
function percentEncode(codePoint: number): string {
  const cp = codePoint >= 0xd800 && codePoint <= 0xdfff ? 0xfffd : codePoint;
  const bytes =
    cp < 0x80
      ? [cp]
      : cp < 0x800
        ? [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)]
        : cp < 0x10000
          ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
          : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  let out = "";
  for (const b of bytes) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
  return out;
}

/** The percent-encoding steps of RFC 3986 §6.2.2.1–6.2.2.2 over a whole path, in one scan. */
function normaliseEncoding(path: string): string {
  let out = "";
  let run = 0; // start of the current run of characters kept as they are (copied with one slice)
  let i = 0;
  while (i < path.length) {
    const code = path.charCodeAt(i);
    if (code < 0x80 && KEPT[code] === 1) {
      i += 1;
      continue;
    }
    out += path.slice(run, i);
    if (code === 0x25 /* % */) {
      const hi = i + 2 < path.length ? hexValue(path.charCodeAt(i + 1)) : -1;
      const lo = hi === -1 ? -1 : hexValue(path.charCodeAt(i + 2));
      if (lo === -1) {
        out += "%25"; // a `%` that encodes nothing is an "other character": encoded (module comment)
        i += 1;
      } else {
        const byte = hi * 16 + lo;
        out += isUnreserved(byte) ? String.fromCharCode(byte) : `%${HEX[hi]}${HEX[lo]}`;
        i += 3;
      }
    } else {
      const cp = path.codePointAt(i) ?? code;
      out += percentEncode(cp);
      i += cp > 0xffff ? 2 : 1;
    }
    run = i;
  }
  return run === 0 ? path : out + path.slice(run);
}

/**
 * RFC 3986 §5.2.4 remove_dot_segments for an absolute path, as one pass over its segments (a stack): `.` is
 * dropped, `..` drops the segment before it (never past the root), and a final `.`/`..` leaves a trailing slash.
 */
export function removeDotSegments(path: string): string {
  if (!path.includes(".")) return path;
  const segments = path.split("/");
  // segments[0] is "" for an absolute path; a relative one (never produced by a URL parser) keeps its first segment.
  const out: string[] = [];
  const last = segments.length - 1;
  for (let i = 1; i <= last; i++) {
    const s = segments[i] as string;
    if (s === ".") {
      if (i === last) out.push("");
    } else if (s === "..") {
      out.pop();
      if (i === last) out.push("");
    } else {
      out.push(s);
    }
  }
  const first = segments[0] as string;
  return first === "" ? `/${out.join("/")}` : [first, ...out].join("/");
}

/** The path as rules see it under `type` (module comment). The input is a URL's path (`/…`); the output too. */
export function normalisePath(path: string, type: UrlNormalizationType): string {
  if (ALREADY_NORMAL.test(path)) return path;
  let p = path;
  if (type === "cloudflare") {
    // 1. Backslashes into forward slashes; 2. successive forward slashes merged (how-it-works, "Cloudflare").
    if (p.includes("\\")) p = p.replaceAll("\\", "/");
    if (p.includes("//")) p = p.replace(/\/{2,}/g, "/");
  }
  // 3. RFC 3986: encodings, then dot segments (decoding first, so an encoded dot segment is one).
  const normalised = removeDotSegments(normaliseEncoding(p));
  return normalised === "" ? "/" : normalised;
}
