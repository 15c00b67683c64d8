/**
 * Unicode facts the tagging API relies on (docs/tags-api.md): lengths are counted in code
 * points, never UTF-16 units; lone surrogates are refused because SQLite stores UTF-8, which cannot hold them.
 */

/** Number of code points, without allocating (a surrogate pair counts once). */
export function codePointLength(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

// With the `u` flag a surrogate class matches only UNPAIRED surrogates: a pair is one code point.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when the string holds no lone surrogate (what ES2024 `isWellFormed()` answers). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * Compares by code point, i.e. the order SQLite's BINARY collation gives UTF-8 text (UTF-8 byte order equals
 * code point order). JS `<` compares UTF-16 units and puts astral characters before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** The case folding of `case_insensitive` (docs/tags-api.md): JS lower-casing, since SQLite folds ASCII only. */
export function fold(s: string): string {
  return s.toLowerCase();
}
