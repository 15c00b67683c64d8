/**
 * The one-pass sets of a rule list (docs/rules-language.md "Evaluation budget"): every `field matches "…"`,
 * `contains "…"` and wildcard of the list's rules on a field without `[…]` or a call, grouped by field, compiled once
 * per zone version into complete DFAs (regex-set.ts, at most `MAX_SET_PATTERNS` patterns each): regexes and
 * wildcards by the subset construction, `contains` into literal sets (Aho–Corasick), each test written as the regex
 * that gives its answer (set-patterns.ts). The request scans the field once per set instead of once per rule. Built
 * with the request phases' rule lists (rule-list.ts), and read by the same rule shape in compile.ts (run time) and
 * worst-case.ts (the static cost): a test on a plain field is answered by a set when the list's sets hold its
 * (field, pattern), and is charged as the set's pass, once per request, instead of as its own run. Every answer
 * equals the test's own. Pure: no bindings.
 */
import type { TBool, Test } from "./check";
import type { CompiledRegex } from "./regex";
import {
  compileLiteralSet,
  compileRegexSet,
  MAX_SET_PATTERNS,
  MAX_SET_STATES,
  MAX_SET_WORK,
  SET_BYTE_UNITS,
  setPassUnits,
  type RegexSet,
} from "./regex-set";
import { containsPattern } from "./set-patterns";
import { BoundedCache } from "../shared/bounded-cache";

/** One set and the field its patterns test. */
export interface FieldSet {
  readonly field: number;
  readonly fieldName: string;
  readonly set: RegexSet;
}

/**
 * A set's passes (one per request and subject): the last one is kept with the request it was charged to, so the
 * rules after the first that read it cost an identity check, and a repeated short subject (the same client's
 * User-Agent request after request) is answered without a scan, as a single regex remembers its last subject
 * (regex.ts). The budget charges the pass once per request whether or not it is remembered (as for a single
 * regex): what is over budget depends on the request and the rules, never on what the isolate saw before.
 */
class SetRun {
  /** The context (`EvaluationContext.serial`) and subject of the last pass, and its answers. */
  private serial = -1;
  private subject: string | undefined;
  private found: Uint8Array = new Uint8Array(0);

  constructor(readonly set: RegexSet) {}

  answers(ctx: SetContext, subject: string): Uint8Array {
    if (ctx.serial === this.serial && subject === this.subject) return this.found;
    // Another context: a request whose evaluation was interleaved with this one's (rate limiting yields between
    // rules) keeps its own passes, so it is never charged twice.
    const kept = ctx.setPasses.get(this.set);
    let found: Uint8Array;
    if (kept !== undefined && kept.subject === subject) found = kept.found;
    else {
      ctx.charge(setPassUnits(subject.length, this.set.idTotal), "a regular expression set's pass");
      found =
        subject === this.subject && subject.length <= MAX_REMEMBERED_SUBJECT ? this.found : this.set.match(subject);
      ctx.setPasses.set(this.set, { subject, found });
    }
    this.serial = ctx.serial;
    this.subject = subject;
    this.found = found;
    return found;
  }
}

/** Longest subject a set's pass is reused for across requests (as regex.ts's single regexes). */
const MAX_REMEMBERED_SUBJECT = 4096;

/** Where a set answers one (field, pattern): its run and the pattern's position in it. */
export class SetSlot {
  constructor(
    private readonly run: SetRun,
    private readonly position: number,
  ) {}

  /**
   * Whether the pattern matches `subject` (the field's value): the set's pass runs at most once per subject and
   * context, charged before it runs (`setPassUnits`).
   */
  answer(ctx: SetContext, subject: string): boolean {
    return this.run.answers(ctx, subject)[this.position] === 1;
  }
}

/** A pass's answers for one subject, kept in the evaluation context (one request). */
export interface SetPass {
  readonly subject: string;
  readonly found: Uint8Array;
}

/** What a set's answer needs of the evaluation context (context.ts): its budget, its passes and its identity. */
export interface SetContext {
  readonly serial: number;
  charge(units: number, what: string): void;
  readonly setPasses: Map<RegexSet, SetPass>;
}

export class RegexSets {
  readonly sets: readonly FieldSet[];
  private readonly slots: ReadonlyMap<number, ReadonlyMap<string, { entry: FieldSet; slot: SetSlot }>>;

  constructor(sets: readonly FieldSet[]) {
    this.sets = sets;
    const slots = new Map<number, Map<string, { entry: FieldSet; slot: SetSlot }>>();
    for (const entry of sets) {
      let byPattern = slots.get(entry.field);
      if (byPattern === undefined)
        slots.set(entry.field, (byPattern = new Map<string, { entry: FieldSet; slot: SetSlot }>()));
      const run = new SetRun(entry.set);
      entry.set.patterns.forEach((pattern, position) =>
        byPattern.set(pattern, { entry, slot: new SetSlot(run, position) }),
      );
    }
    this.slots = slots;
  }

  /** The set that answers `pattern` on `field`, or undefined. */
  setOf(field: number, pattern: string): FieldSet | undefined {
    return this.slots.get(field)?.get(pattern)?.entry;
  }

  /** Where `pattern` on `field` is answered, or undefined (the regex runs on its own). */
  slotOf(field: number, pattern: string): SetSlot | undefined {
    return this.slots.get(field)?.get(pattern)?.slot;
  }

  /** Whether `pattern` matches `subject` (the value of `field`) by its set; undefined when no set holds it. */
  answer(ctx: SetContext, field: number, pattern: string, subject: string): boolean | undefined {
    return this.slotOf(field, pattern)?.answer(ctx, subject);
  }
}

/** Compiled sets by field and patterns, per isolate: the zone writer's check and the edge's compile share them. */
const compiled = new BoundedCache<string, { readonly set: RegexSet | null }>({ capacity: 64 });

/** A test a set can answer, on a plain field: its field and its pattern (the test written as a regex). */
export interface SetMember {
  readonly field: number;
  readonly name: string;
  readonly pattern: string;
  /** Its own regex, for a `matches` (null for a `contains` or wildcard, which a set joins only with others). */
  readonly regex: CompiledRegex | null;
  /** The needle of a `contains` (literal sets: `compileLiteralSet`), else null. */
  readonly literal: string | null;
  /** Units per subject byte the test costs on its own (compile.ts): a regex's own run is charged far more. */
  readonly alone: number;
  /** Whether it is true of the empty value (a set's DFA has no step for it: answered per pattern). */
  readonly matchesEmpty: () => boolean;
}

/**
 * The pattern a set holds for `test` when it reads a plain field, or null when no set can answer it: a bytes-mode
 * regex with only `^`/`$` as assertions, a `contains` of a non-empty literal, a wildcard (set-patterns.ts).
 */
export function setPatternOf(test: Test): string | null {
  switch (test.kind) {
    case "regex":
      return test.regex.setEligible ? test.regex.pattern : null;
    case "contains":
      return test.needle.length > 0 ? containsPattern(test.needle) : null;
    case "wildcard":
      return test.setPattern;
    default:
      return null;
  }
}

/** `contains` charges the subject's bytes, a wildcard twice that (compile.ts). */
const CONTAINS_UNITS_PER_BYTE = 1;
const WILDCARD_UNITS_PER_BYTE = 2;

/** A test on a plain field (no `[…]`, no call, no `[*]`) that a set can answer, or null. */
export function setMember(node: TBool): SetMember | null {
  if (node.kind !== "compare") return null;
  const lhs = node.lhs;
  if (lhs.base.kind !== "field" || lhs.steps.length > 0 || lhs.mapped) return null;
  const pattern = setPatternOf(node.test);
  if (pattern === null) return null;
  const at = { field: lhs.base.index, name: lhs.base.name, pattern };
  const test = node.test;
  switch (test.kind) {
    case "regex":
      return { ...at, regex: test.regex, literal: null, alone: Infinity, matchesEmpty: () => test.regex.test("") };
    case "wildcard":
      return { ...at, regex: null, literal: null, alone: WILDCARD_UNITS_PER_BYTE, matchesEmpty: () => test.match("") };
    case "contains":
      return { ...at, regex: null, literal: test.needle, alone: CONTAINS_UNITS_PER_BYTE, matchesEmpty: () => false };
    default:
      return null;
  }
}

/** The set-answerable tests of a rule's tree outside `any()`/`all()` and calls. */
function collect(node: TBool, out: (found: SetMember) => void): void {
  switch (node.kind) {
    case "logical":
      if (!node.array) for (const operand of node.operands) collect(operand, out);
      return;
    case "not":
      collect(node.operand, out);
      return;
    case "compare": {
      const found = setMember(node);
      if (found !== null) out(found);
      return;
    }
    default:
  }
}

/**
 * Whether tests that cost `alone` units per byte each on their own are cheaper as one pass (`SET_BYTE_UNITS` per
 * byte): always with a regex among them, else when their own scans add up to more.
 */
function passPays(members: readonly SetMember[]): boolean {
  return members.reduce((n, m) => n + m.alone, 0) > SET_BYTE_UNITS;
}

/**
 * The most work (regex-set.ts `MAX_SET_WORK` units) one list's sets may take to build, failed attempts included:
 * a list of patterns whose DFAs explode (`a[ab]{998}w`) costs at most this, then its rules keep their own regexes.
 */
export const MAX_LIST_SET_WORK = 2 * MAX_SET_WORK;
/** The most work a pattern's own set may take (a complete DFA of a list of names takes ~31,000). */
export const MAX_SINGLE_SET_WORK = 100_000;
/** A pattern alone gets its own set only when its program is at most this (a larger one rarely has a small DFA). */
export const MAX_SINGLE_SET_PROGRAM = 200;

/**
 * The sets of rules (their checked trees, in list order); null when no rule has a test a set should answer. Per
 * field: its regexes, then its wildcards, in sets of at most `MAX_SET_PATTERNS` (complete DFAs, regex-set.ts); its
 * `contains` in literal sets of their own (`compileLiteralSet`: built in a fraction of the time, and never too
 * large), at most `MAX_SET_PATTERNS` literals and `MAX_SET_STATES` - 1 bytes each. Wildcards and literals get sets
 * only when a pass costs less than their own scans (`passPays`); a regex always.
 */
export function planRegexSets(trees: readonly TBool[]): RegexSets | null {
  const groups = new Map<number, { name: string; members: Map<string, SetMember> }>();
  for (const tree of trees)
    collect(tree, (member) => {
      let group = groups.get(member.field);
      if (group === undefined) groups.set(member.field, (group = { name: member.name, members: new Map() }));
      // `matches "bot1"` and `contains "bot1"` are one test: the regex's entry is kept (it may get a set alone).
      const known = group.members.get(member.pattern);
      if (known === undefined || known.alone < member.alone) group.members.set(member.pattern, member);
    });
  const sets: FieldSet[] = [];
  let budget = MAX_LIST_SET_WORK;
  const build = (name: string, chunk: readonly SetMember[], most: number): RegexSet | null => {
    const literal = chunk.every((m) => m.literal !== null);
    const key = `${literal ? "L" : "R"}${most}\u0000${name}\u0000${chunk.map((m) => m.pattern).join("\u0000")}`;
    // Deterministic whatever the isolate built before (the writer's check and the edge must plan the same sets):
    // a cached set counts the work its build took, and is used only if that build would fit what is left; a cached
    // failure was a build with the whole allowance, so any build fails; a failure with less is not cached.
    const cached = compiled.peek(key);
    if (cached !== undefined && (cached.set === null || cached.set.work <= Math.min(budget, most))) {
      budget -= cached.set === null ? most : cached.set.work;
      return cached.set;
    }
    if (budget <= 0) return null;
    const allowance = Math.min(budget, most);
    const patterns = chunk.map((m) => m.pattern);
    const set = literal
      ? compileLiteralSet(
          chunk.map((m) => m.literal ?? ""),
          patterns,
          allowance,
        )
      : compileRegexSet(patterns, (i) => chunk[i]?.matchesEmpty() === true, allowance);
    budget -= set === null ? allowance : set.work;
    if (set !== null || allowance === most) compiled.set(key, { set });
    return set;
  };
  for (const [field, { name, members }] of groups) {
    const all = [...members.values()];
    const patterned = [
      ...all.filter((m) => m.regex !== null),
      ...all.filter((m) => m.regex === null && m.literal === null),
    ];
    if (passPays(patterned))
      for (let i = 0; i < patterned.length; i += MAX_SET_PATTERNS) {
        const chunk = patterned.slice(i, i + MAX_SET_PATTERNS);
        if (!passPays(chunk)) continue;
        const set = build(name, chunk, MAX_SET_WORK);
        if (set !== null) {
          sets.push({ field, fieldName: name, set });
          continue;
        }
        // A chunk whose DFA is too large (patterns like `a.*b<k>` multiply each other's states): each small regex
        // gets its own complete DFA, still one lookup per byte; the others keep their own tests, charged per run.
        for (const member of chunk) {
          const regex = member.regex;
          if (regex === null || chunk.length === 1 || regex.programSize > MAX_SINGLE_SET_PROGRAM) continue;
          const one = build(name, [member], MAX_SINGLE_SET_WORK);
          if (one !== null) sets.push({ field, fieldName: name, set: one });
        }
      }
    const literals = all.filter((m) => m.literal !== null && m.literal.length < MAX_SET_STATES);
    if (passPays(literals))
      for (const chunk of literalChunks(literals)) {
        if (!passPays(chunk)) continue;
        const set = build(name, chunk, MAX_SET_WORK);
        if (set !== null) sets.push({ field, fieldName: name, set });
      }
  }
  return sets.length === 0 ? null : new RegexSets(sets);
}

/** Literals in list order, cut so a chunk's trie fits one set: `MAX_SET_PATTERNS` literals, `MAX_SET_STATES` - 1 bytes. */
function literalChunks(literals: readonly SetMember[]): SetMember[][] {
  const chunks: SetMember[][] = [];
  let chunk: SetMember[] = [];
  let bytes = 0;
  for (const m of literals) {
    const length = m.literal?.length ?? 0;
    if (chunk.length === MAX_SET_PATTERNS || bytes + length >= MAX_SET_STATES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(m);
    bytes += length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
