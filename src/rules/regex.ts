/**
 * Regular expressions for `matches` / `~` (contract §2.2): the RE2 dialect on `re2js`, whose matching is linear
 * in the input (no backtracking), never JavaScript's backtracking `RegExp`.
 *
 * Wirefilter runs Rust regex over bytes with Unicode off unless `(?u)` is given (rules-language.md §3.3). We
 * mirror that with two modes:
 * - bytes mode (default): the subject is the byte string itself, so `.` is one byte and `\xFF` is byte 0xFF;
 *   Unicode classes (`\pL`) are refused, as Rust refuses them with Unicode off.
 * - Unicode mode: a pattern that starts with a flag group containing `u` (`(?u)`, `(?iu)`) runs on the
 *   UTF-8-decoded subject, so `(?u)\p{Greek}` matches "α". `u` elsewhere is refused (docs: deviations).
 * Patterns RE2 cannot run (look-around, back-references) are refused when the rule is written.
 */
import { RE2JS } from "re2js";
import { messageOf, err, ok, type Result } from "../shared/result";
import { fromByteString } from "./values";

/** Cap on one compiled program (RE2 instructions); wirefilter caps compiled size at 10 MiB (§5). */
export const MAX_REGEX_PROGRAM_SIZE = 10_000;

/**
 * Budget for the counted repetitions (`{n}`, `{n,m}`) of all regexes of one expression, checked *before*
 * compiling: compile time grows with the repeated program, and 64 regexes of `[a-z]{1000}` would otherwise
 * cost seconds of CPU before the size cap could refuse them (contract §8: limits before work).
 */
export const MAX_REPETITION_BUDGET = 4_000;

/**
 * Sum of the largest bound of every counted repetition in the pattern (an upper estimate of its cost). Escapes are
 * skipped whole, braces included: `\x{10000}` is a code point and `\p{Greek}` a class in RE2 syntax, not
 * repetitions (issue 19: `(?u)\x{10000}` was refused as a repetition of 10,000).
 */
export function repetitionCost(pattern: string): number {
  let cost = 0;
  for (const m of pattern.matchAll(/\\[xpP]\{[^}]*\}|\\.|\{(\d+)(?:,(\d*))?\}/g)) {
    if (m[1] === undefined) continue;
    cost += Math.max(Number(m[1]), m[2] ? Number(m[2]) : 0);
  }
  return cost;
}

export interface CompiledRegex {
  readonly pattern: string;
  /** re2js instructions: a run costs at most (subject length + 1) × this (rules/budget.ts). */
  readonly programSize: number;
  /** Unanchored search, like wirefilter's `is_match`. */
  test(subject: string): boolean;
}

const LEADING_FLAGS = /^\(\?([imsUu]+)\)/;

export function compileRegex(pattern: string): Result<CompiledRegex, string> {
  let source = pattern;
  let unicode = false;
  const flags = LEADING_FLAGS.exec(pattern);
  if (flags?.[1]?.includes("u")) {
    unicode = true;
    const rest = flags[1].replaceAll("u", "");
    source = (rest === "" ? "" : `(?${rest})`) + pattern.slice(flags[0].length);
    source = fromByteString(source);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, unicode ? 0 : RE2JS.DISABLE_UNICODE_GROUPS);
  } catch (e) {
    return err(explain(source, messageOf(e), unicode));
  }
  if (re.programSize() > MAX_REGEX_PROGRAM_SIZE) {
    return err(`regular expression too large (compiled program over ${MAX_REGEX_PROGRAM_SIZE} instructions)`);
  }
  const run = unicode ? (subject: string) => re.test(fromByteString(subject)) : (subject: string) => re.test(subject);
  // The last subject and its answer: one rule meets the same value error after error (a client's User-Agent, a
  // path), and matching is pure, so a repeated subject costs a string comparison instead of a run of the engine
  // (issue 12: 60 user-agent regexes of the 300-rule benchmark ran per error). Only short subjects are kept, so a
  // rule never holds a large value alive. The budget charges a run whether or not the memo answers (compile.ts), so
  // whether a rule is over budget depends on the request and the rules only, never on what the isolate saw before.
  let lastSubject: string | undefined;
  let lastResult = false;
  return ok({
    pattern,
    programSize: re.programSize(),
    test: (subject) => {
      if (subject === lastSubject) return lastResult;
      const result = run(subject);
      if (subject.length <= MAX_REMEMBERED_SUBJECT) {
        lastSubject = subject;
        lastResult = result;
      }
      return result;
    },
  });
}

/** Longest subject a compiled regex remembers its answer for (characters: bytes of the byte string). */
const MAX_REMEMBERED_SUBJECT = 4096;

function explain(source: string, message: string, unicode: boolean): string {
  const detail = message.replace(/^error parsing regexp: /, "");
  if (/\(\?<?[=!]/.test(source)) return `look-around is not supported (RE2 syntax): ${detail}`;
  if (/\\[1-9]/.test(source)) return `back-references are not supported (RE2 syntax): ${detail}`;
  if (/\(\?[a-zA-Z-]*u/.test(source))
    return `the \`u\` flag is supported only at the start of the pattern, as \`(?u)\`: ${detail}`;
  if (!unicode && /\\[pP]/.test(source)) return `Unicode classes need \`(?u)\` at the start of the pattern: ${detail}`;
  return `invalid regular expression: ${detail}`;
}
