/**
 * A small RFC 8941 List parser (§4.2.1), enough for `Proxy-Status` (RFC 9209 §2: an sf-list of items, each an
 * sf-token or sf-string with parameters). Bare items: integer, decimal, string, token, byte sequence, boolean;
 * inner lists are parsed and kept. A header that does not parse is `null` (RFC 8941 §4.2: fail the whole field).
 * No runtime dependency; the tests compare it with `structured-headers`.
 */

/** A token (RFC 8941 §3.3.4) kept apart from a string. */
export interface SfToken {
  readonly kind: "token";
  readonly value: string;
}
export type SfBareItem = number | string | boolean | SfToken | Uint8Array;
export type SfParameters = ReadonlyMap<string, SfBareItem>;
export interface SfItem {
  readonly kind: "item";
  readonly value: SfBareItem;
  readonly params: SfParameters;
}
export interface SfInnerList {
  readonly kind: "inner-list";
  readonly items: readonly SfItem[];
  readonly params: SfParameters;
}
export type SfMember = SfItem | SfInnerList;

class Fail extends Error {}

export function parseSfList(input: string): SfMember[] | null {
  const p = { s: input, i: 0 };
  try {
    skip(p, " ");
    const out: SfMember[] = [];
    while (p.i < p.s.length) {
      out.push(p.s[p.i] === "(" ? innerList(p) : item(p));
      skip(p, " \t");
      if (p.i >= p.s.length) return out;
      if (p.s[p.i] !== ",") throw new Fail();
      p.i++;
      skip(p, " \t");
      if (p.i >= p.s.length) throw new Fail();
    }
    return out;
  } catch (e) {
    if (e instanceof Fail) return null;
    throw e;
  }
}

interface Cursor {
  s: string;
  i: number;
}

function skip(p: Cursor, chars: string): void {
  while (p.i < p.s.length && chars.includes(p.s[p.i] as string)) p.i++;
}

function innerList(p: Cursor): SfInnerList {
  p.i++; // (
  const items: SfItem[] = [];
  for (;;) {
    skip(p, " ");
    if (p.s[p.i] === ")") {
      p.i++;
      return { kind: "inner-list", items, params: params(p) };
    }
    items.push(item(p));
    const c = p.s[p.i];
    if (c !== " " && c !== ")") throw new Fail();
  }
}

function item(p: Cursor): SfItem {
  const value = bareItem(p);
  return { kind: "item", value, params: params(p) };
}

function params(p: Cursor): Map<string, SfBareItem> {
  const out = new Map<string, SfBareItem>();
  while (p.s[p.i] === ";") {
    p.i++;
    skip(p, " ");
    const k = key(p);
    let v: SfBareItem = true;
    if (p.s[p.i] === "=") {
      p.i++;
      v = bareItem(p);
    }
    out.set(k, v);
  }
  return out;
}

function key(p: Cursor): string {
  const m = /^[a-z*][a-z0-9_\-.*]*/.exec(p.s.slice(p.i));
  if (!m) throw new Fail();
  p.i += m[0].length;
  return m[0];
}

function bareItem(p: Cursor): SfBareItem {
  const rest = p.s.slice(p.i);
  const c = rest[0];
  if (c === undefined) throw new Fail();
  if (c === '"') return sfString(p);
  if (c === "?") {
    if (rest[1] !== "0" && rest[1] !== "1") throw new Fail();
    p.i += 2;
    return rest[1] === "1";
  }
  if (c === ":") {
    const end = rest.indexOf(":", 1);
    if (end === -1) throw new Fail();
    const b64 = rest.slice(1, end);
    if (!/^[A-Za-z0-9+/=]*$/.test(b64)) throw new Fail();
    p.i += end + 1;
    return Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
  }
  const num = /^-?\d{1,15}(?:\.\d{1,3})?/.exec(rest);
  if (num && (c === "-" || /\d/.test(c))) {
    const text = num[0];
    if (text.includes(".") ? text.replace("-", "").split(".")[0]!.length > 12 : false) throw new Fail();
    p.i += text.length;
    return Number(text);
  }
  const tok = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(rest);
  if (tok) {
    p.i += tok[0].length;
    return { kind: "token", value: tok[0] };
  }
  throw new Fail();
}

function sfString(p: Cursor): string {
  let out = "";
  p.i++;
  while (p.i < p.s.length) {
    const c = p.s[p.i++] as string;
    if (c === "\\") {
      const n = p.s[p.i++];
      if (n !== '"' && n !== "\\") throw new Fail();
      out += n;
    } else if (c === '"') {
      return out;
    } else if (c < " " || c > "~") {
      throw new Fail();
    } else out += c;
  }
  throw new Fail();
}
