/**
 * Regular expressions for `matches` / `~` (docs/rules-language.md): the RE2 dialect on `re2js`, whose matching is linear
 * in the input (no backtracking), never JavaScript's backtracking `RegExp`.
 *
 * Wirefilter runs Rust regex over bytes with Unicode off unless `(?u)` is given (docs/rules-language.md). We
 * mirror that with two modes:
 * - bytes mode (default): the subject is the byte string itself, so `.` is one byte and `\xFF` is byte 0xFF;
 *   Unicode classes (`\pL`) are refused, as Rust refuses them with Unicode off.
 * - Unicode mode: a pattern that starts with a flag group containing `u` (`(?u)`, `(?iu)`) runs on the
 *   UTF-8-decoded subject, so `(?u)\p{Greek}` matches "α". `u` elsewhere is refused (docs: deviations).
 * Patterns RE2 cannot run (look-around, back-references) are refused when the rule is written.
 */
import { RE2JS } from "re2js";
import { messageOf, err, ok, type Result } from "../shared/result";
import { setEligible } from "./regex-set";
import { fromByteString } from "./values";

/** Cap on one compiled program (RE2 instructions); wirefilter caps compiled size at 10 MiB (docs/rules-language.md). */
export const MAX_REGEX_PROGRAM_SIZE = 10_000;

/**
 * Budget for the counted repetitions (`{n}`, `{n,m}`) of all regexes of one expression, checked *before*
 * compiling: compile time grows with the repeated program, and 64 regexes of `[a-z]{1000}` would otherwise
 * cost seconds of CPU before the size cap could refuse them (docs/configuration.md: limits before work).
 */
export const MAX_REPETITION_BUDGET = 4_000;

/**
 * Sum of the largest bound of every counted repetition in the pattern (an upper estimate of its cost). Escapes are
 * skipped whole, braces included: `\x{10000}` is a code point and `\p{Greek}` a class in RE2 syntax, not
 * repetitions (`(?u)\x{10000}` was refused as a repetition of 10,000).
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
  /** re2js instructions: a run costs at most `regexUnits` of its subject (rules/budget.ts). */
  readonly programSize: number;
  /** The byte classes of its DFA (re2js `numClasses`): the size of each DFA state's transition table. */
  readonly classes: number;
  /**
   * Whether it can join a phase's one-pass set of the regexes on its field (regex-set.ts `setEligible`): bytes mode,
   * and of the zero-width assertions only `^`/`$` at the text's ends.
   */
  readonly setEligible: boolean;
  /** Unanchored search, like wirefilter's `is_match`. */
  test(subject: string): boolean;
}

/**
 * The memory of one regex's lazy DFA (re2js counts its states and transition tables in bytes): 128 KiB, so the
 * DFA of a list of names (`(?i)(sqlmap|nikto|…10 names)`: 57 KB, 67 states; `(?i)(union.*select|…)`: 107 KB)
 * holds whole, while one that needs a state per byte (`a[ab]{20}w` on random a/b text) stops early.
 *
 * Why: re2js builds DFA states lazily, within 8 MiB by default, and when they run out it clears them and starts
 * again as long as it makes some progress. A DFA whose states are exponential in the pattern (counted repetitions
 * after an unanchored start) then builds a new state for nearly every byte: measured in workerd on 32 KB of random
 * a/b text, 15–325 ms per run for 20- to 70-instruction patterns, 5,800–51,000 (bytes × program) per ms across
 * runs, under the 45,000 the budget assumes, while bounded as here the same runs were charged 145,000–255,000
 * units per ms (docs/rules-language.md "Evaluation budget"). So each regex's DFA is bounded here and never
 * cleared (`clearCache` does nothing): when it is full, a run that needs a state it does not have gives up and
 * re2js runs the NFA (or its bit-state backtracker on small inputs), whose cost the budget charges. The states a
 * regex ever builds are then at most `REGEX_DFA_STATES`, over all its runs.
 */
export const REGEX_DFA_MEMORY = 128 * 1024;
/** The most DFA states `REGEX_DFA_MEMORY` holds: re2js counts at least 150 bytes per state. */
export const REGEX_DFA_STATES = Math.ceil(REGEX_DFA_MEMORY / 150);
/**
 * Units charged per DFA state a run may build, beyond the program's size and its byte classes (the closure and
 * the transition table): measured, a state cost 50–75 units more than the program's size (docs/rules-language.md).
 */
export const REGEX_DFA_STATE_UNITS = 128;

/**
 * What `count` runs of a regex over subjects of `bytes` bytes in all cost at most (budget.ts): each run is linear
 * in its subject with the program's size as the factor (the NFA, onepass, the backtracker, and the DFA's lookups,
 * the `+ 1`), and builds at most one DFA state per byte it reads, at most `REGEX_DFA_STATES` in all (above).
 */
export function regexUnits(bytes: number, count: number, programSize: number, classes: number): number {
  const states = Math.min(bytes + 2 * count, count * REGEX_DFA_STATES);
  return (bytes + count) * (programSize + 1) + states * (programSize + classes + REGEX_DFA_STATE_UNITS);
}

/** The fields of re2js 2.10's compiled program this module bounds (not part of its typed API; tested). */
interface LazyDfa {
  stateBudget: number;
  memBudget: number;
  readonly numClasses: number;
  clearCache: () => void;
}

/**
 * Bounds the regex's DFA (`REGEX_DFA_MEMORY`, never cleared) and returns its byte classes. Throws if re2js's
 * internals are not the ones this was written for: a dependency upgrade must not silently bring back the unbounded
 * DFA (every regex compiled goes through here; test/workers/rules/worst-case.test.ts checks what it does).
 */
export function boundDfa(re: RE2JS): number {
  const dfa = (re as unknown as { readonly re2Input?: { readonly dfa?: Partial<LazyDfa> } }).re2Input?.dfa;
  if (
    dfa === undefined ||
    typeof dfa.stateBudget !== "number" ||
    typeof dfa.memBudget !== "number" ||
    typeof dfa.numClasses !== "number" ||
    typeof dfa.clearCache !== "function"
  ) {
    throw new Error("re2js: the lazy DFA is not where rules/regex.ts bounds it (re2js upgraded?)");
  }
  dfa.stateBudget = REGEX_DFA_MEMORY;
  dfa.memBudget = REGEX_DFA_MEMORY;
  dfa.clearCache = () => {};
  return dfa.numClasses;
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
  const classes = boundDfa(re);
  const run = unicode ? (subject: string) => re.test(fromByteString(subject)) : (subject: string) => re.test(subject);
  // The last subject and its answer: one rule meets the same value error after error (a client's User-Agent, a
  // path), and matching is pure, so a repeated subject costs a string comparison instead of a run of the engine
  // (60 user-agent regexes of the 300-rule benchmark ran per error). Only short subjects are kept, so a
  // rule never holds a large value alive. The budget charges a run whether or not the memo answers (compile.ts), so
  // whether a rule is over budget depends on the request and the rules only, never on what the isolate saw before.
  let lastSubject: string | undefined;
  let lastResult = false;
  return ok({
    pattern,
    programSize: re.programSize(),
    classes,
    setEligible: !unicode && setEligible(re),
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
