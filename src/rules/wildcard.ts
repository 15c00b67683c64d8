/**
 * `wildcard` and `strict wildcard` (docs/rules-language.md): the whole value must match; `*` matches zero or
 * more bytes; `\*` is a literal star and `\\` a literal backslash (after ordinary string unescaping); any other
 * escape and `**` are invalid; `?` is an ordinary character. `wildcard` folds ASCII case, `strict` does not.
 * Matching is greedy-leftmost over the literal pieces, linear in the subject for each piece.
 */
import { err, ok, type Result } from "../shared/result";
import { wildcardPattern } from "./set-patterns";
import { asciiLower } from "./values";

export type WildcardMatcher = (subject: string) => boolean;

/** A compiled wildcard: its matcher, and the same test as a regex a phase's one-pass set can hold (set-patterns.ts). */
export interface CompiledWildcard {
  readonly match: WildcardMatcher;
  readonly setPattern: string;
}

export function compileWildcard(
  pattern: string,
  caseInsensitive: boolean,
  starLimit?: number,
): Result<CompiledWildcard, string> {
  const pieces: string[] = [];
  let current = "";
  let stars = 0;
  let lastWasStar = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "*") {
      if (lastWasStar) return err("`**` is not allowed in a wildcard pattern");
      pieces.push(current);
      current = "";
      stars++;
      lastWasStar = true;
      continue;
    }
    lastWasStar = false;
    if (c === "\\") {
      const next = pattern.charAt(i + 1);
      if (next !== "*" && next !== "\\")
        return err("invalid escape in a wildcard pattern: only \\* and \\\\ are allowed");
      current += next;
      i++;
      continue;
    }
    current += c;
  }
  pieces.push(current);
  if (starLimit !== undefined && stars > starLimit)
    return err(`too many \`*\` in a wildcard pattern (at most ${starLimit})`);
  const fold = caseInsensitive ? asciiLower : (s: string): string => s;
  const parts = pieces.map(fold);
  const setPattern = wildcardPattern(pieces, caseInsensitive);
  const first = parts[0] ?? "";
  if (parts.length === 1) return ok({ match: (subject) => fold(subject) === first, setPattern });
  const last = parts[parts.length - 1] ?? "";
  const middle = parts.slice(1, -1);
  const minLength = parts.reduce((n, p) => n + p.length, 0);
  const match: WildcardMatcher = (raw) => {
    if (raw.length < minLength) return false;
    const subject = fold(raw);
    if (!subject.startsWith(first) || !subject.endsWith(last)) return false;
    let pos = first.length;
    const limit = subject.length - last.length;
    for (const part of middle) {
      const at = subject.indexOf(part, pos);
      if (at === -1 || at + part.length > limit) return false;
      pos = at + part.length;
    }
    return true;
  };
  return ok({ match, setPattern });
}
