/**
 * The linear tests a phase's one-pass set can answer besides regexes (regex-sets.ts; docs/rules-language.md
 * "Evaluation budget"), written as the bytes-mode regex that gives exactly their answer: `contains "x"` is the
 * unanchored literal `x`, and a wildcard is the anchored literal pieces with any bytes between them. Then N
 * `contains` (or wildcards) on one field cost one pass over it instead of N scans. Every byte is written as `\x{hh}`
 * but ASCII letters and digits (which the pattern keeps as they are, so `contains "bot1"` and `matches "bot1"` share
 * one slot: they are the same test), so nothing in a literal is read as regex syntax. Pure: no bindings.
 */

/** One byte (0–255) as a regex atom that matches exactly that byte; `fold`: an ASCII letter also in its other case. */
function byteAtom(code: number, fold: boolean): string {
  const c = String.fromCharCode(code);
  if (fold && /[A-Za-z]/.test(c)) return `[${c.toLowerCase()}${c.toUpperCase()}]`;
  if (/[A-Za-z0-9]/.test(c)) return c;
  return `\\x{${code.toString(16)}}`;
}

function literal(bytes: string, fold: boolean): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += byteAtom(bytes.charCodeAt(i) & 0xff, fold);
  return out;
}

/** `field contains needle` as an unanchored regex over the byte string (needle: a byte string, not empty). */
export function containsPattern(needle: string): string {
  return literal(needle, false);
}

/**
 * A wildcard's pieces (its text split at each unescaped `*`, escapes resolved: wildcard.ts) as a regex: the whole
 * value is the pieces in order with any bytes between two (`[\x{0}-\x{ff}]*`: `.` would stop at a newline). A
 * leading or trailing `*` leaves that end unanchored instead (`*bot*` is `contains "bot"`): the same answers, and
 * a set of such patterns keeps the few states of a literal search, where `…[\x{0}-\x{ff}]*$` would have a state
 * per combination of patterns already found. `fold` (`wildcard`, not `strict wildcard`): ASCII letters of either
 * case, as wildcard.ts folds ASCII only.
 */
export function wildcardPattern(pieces: readonly string[], fold: boolean): string {
  const open = pieces.length > 1 && pieces[0] === "";
  const openEnd = pieces.length > 1 && pieces[pieces.length - 1] === "";
  const inner = pieces.slice(open ? 1 : 0, openEnd ? -1 : undefined);
  return `${open ? "" : "^"}${inner.map((p) => literal(p, fold)).join("[\\x{0}-\\x{ff}]*")}${openEnd ? "" : "$"}`;
}
