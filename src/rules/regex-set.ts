/**
 * Many regular expressions over one subject in one pass (docs/rules-language.md "Evaluation budget"): the regexes a
 * phase's rules test on the same field are compiled together, once per zone version, into one complete DFA over
 * bytes, so a request scans the field once whatever the rule count, and the pass costs the same per byte whatever
 * the subject.
 *
 * Why complete: re2js's `RE2Set` builds its DFA lazily, so a hostile subject can make it build a state per byte,
 * each a closure over the whole set's program, and when its memory runs out it falls back to the NFA over the whole
 * set: the worst case is then (bytes × the set's program), what one scan per rule cost. Here every state is built
 * when the set is compiled (a subset construction over the program re2js compiles for the set), so a pass is one
 * table lookup per byte, never more, and the static worst case (worst-case.ts) is bytes × a constant. A set whose
 * DFA would pass `MAX_SET_STATES` states or `MAX_SET_WORK` steps to build is not made (`compileRegexSet` gives
 * null): its rules keep their own regexes, charged as before.
 *
 * Which patterns: bytes mode (no `(?u)`, the subject is the byte string), and of the zero-width assertions only
 * `^` and `$` at the text's ends (not `(?m)` lines, not `\b`): the others need the neighbouring bytes, and are left
 * to the single-pattern engine (`setEligible`). Answers equal re2js's `test()` per pattern (the property test in
 * test/workers/rules/regex-set.test.ts compares them on random patterns and subjects made of their literals).
 * Pure: no bindings.
 */
import { RE2JS, RE2Set } from "re2js";

/** The most states one set's DFA may have (its table is states × byte classes × 4 bytes). */
export const MAX_SET_STATES = 4_096;
/**
 * The most steps building one set's DFA may take (NFA positions visited, and one per state and byte class): bounds
 * compile time, also of a set that turns out too large. 256 patterns `bot<k>[0-9]+` take ~0.25 M.
 */
export const MAX_SET_WORK = 1_500_000;
/** The most patterns one set holds: a group with more is cut into sets of at most this many. */
export const MAX_SET_PATTERNS = 256;

/**
 * Units (budget.ts) per byte of one pass: a class lookup and a table lookup, measured in workerd
 * (docs/rules-language.md "Evaluation budget"), with a margin.
 */
export const SET_BYTE_UNITS = 4;
/** Units per match id a pass may collect (each match state's ids are read at most once per pass). */
export const SET_ID_UNITS = 2;

/** The program of re2js's compiled set (not its typed API: `boundProgram` checks it is there). */
interface Inst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: readonly number[];
  matchRune(r: number): boolean;
}
interface Prog {
  readonly start: number;
  numInst(): number;
  getInst(pc: number): Inst;
}

// re2js's instruction codes (Inst) and empty-width flags (Utils): fixed by RE2's design, checked on use.
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;
const EMPTY_BEGIN_TEXT = 4;
const EMPTY_END_TEXT = 8;

/** Whether a compiled single pattern can join a set: only `^`/`$` at the text's ends, no look-behind. */
export function setEligible(re: RE2JS): boolean {
  const prog = programOf(re);
  if (prog === null) return false;
  for (let pc = 0; pc < prog.numInst(); pc++) {
    const inst = prog.getInst(pc);
    if (inst.op > RUNE_ANY_NOT_NL || inst.op < ALT) return false;
    if (inst.op === EMPTY_WIDTH && inst.arg !== EMPTY_BEGIN_TEXT && inst.arg !== EMPTY_END_TEXT) return false;
  }
  return true;
}

function programOf(re: RE2JS): Prog | null {
  const prog = (re as unknown as { readonly re2Input?: { readonly prog?: Partial<Prog> } }).re2Input?.prog;
  return isProg(prog) ? prog : null;
}

function isProg(prog: Partial<Prog> | undefined | null): prog is Prog {
  return (
    prog !== undefined &&
    prog !== null &&
    typeof prog.start === "number" &&
    typeof prog.numInst === "function" &&
    typeof prog.getInst === "function"
  );
}

export interface RegexSet {
  /** The patterns, in the order their answers are given. */
  readonly patterns: readonly string[];
  readonly states: number;
  readonly classes: number;
  /** The work its build took (`MAX_SET_WORK` units). */
  readonly work: number;
  /** The match ids of all states together: what a pass may read besides the bytes. */
  readonly idTotal: number;
  /** Which patterns match `subject` (a byte string): 1 at a pattern's position when it matches. */
  match(subject: string): Uint8Array;
}

/** The units (budget.ts) of one pass of `set` over a subject of `bytes` bytes. */
export function setPassUnits(bytes: number, idTotal: number): number {
  return (bytes + 1) * SET_BYTE_UNITS + idTotal * SET_ID_UNITS;
}

/**
 * One complete DFA for `patterns` (each `setEligible`, bytes mode), or null when it would pass `MAX_SET_STATES` or
 * `MAX_SET_WORK`, or re2js's internals are not the ones this was written for.
 */
export function compileRegexSet(
  patterns: readonly string[],
  /** Whether pattern i matches the empty string (its own regex answers; a set's DFA has no step for it). */
  matchesEmpty: (i: number) => boolean,
  /** The most work this build may take (`MAX_SET_WORK` at most). */
  maxWork: number = MAX_SET_WORK,
): RegexSet | null {
  if (patterns.length === 0 || patterns.length > MAX_SET_PATTERNS) return null;
  const set = new RE2Set(RE2Set.UNANCHORED, RE2JS.DISABLE_UNICODE_GROUPS);
  try {
    for (const p of patterns) set.add(p);
    set.compile();
  } catch {
    return null;
  }
  const prog = set.prog as unknown as Partial<Prog> | null;
  const latin1 = (set.dfa as unknown as { readonly latin1Class?: unknown } | null)?.latin1Class;
  if (!isProg(prog) || !(latin1 instanceof Int32Array) || latin1.length < 256) return null;
  return new Builder(prog, latin1, patterns, matchesEmpty, Math.min(maxWork, MAX_SET_WORK)).build();
}

/** The subset construction (Aho and Ullman's, over RE2's program as re2js's DFA steps it). */
class Builder {
  private readonly n: number;
  /** Byte → dense class; a representative byte per class. */
  private readonly classOf = new Uint8Array(256);
  private readonly reps: number[] = [];
  /** Per pc, the closure of its `out` (positions > 0): kernel pcs (rune ops, MATCH, pending `$`). */
  private readonly closures = new Map<number, Int32Array>();
  /** Visited marks of a closure (`closure`) and of a state being built (`build`): two, as a build calls closures. */
  private readonly mark: Int32Array;
  private readonly inState: Int32Array;
  private generation = 0;
  private stateGeneration = 0;
  private work = 0;

  constructor(
    private readonly prog: Prog,
    latin1: Int32Array,
    private readonly patterns: readonly string[],
    private readonly matchesEmpty: (i: number) => boolean,
    private readonly maxWork: number,
  ) {
    this.n = prog.numInst();
    this.mark = new Int32Array(this.n);
    this.inState = new Int32Array(this.n);
    const dense = new Map<number, number>();
    for (let b = 0; b < 256; b++) {
      const c = latin1[b] as number;
      let d = dense.get(c);
      if (d === undefined) {
        d = dense.size;
        dense.set(c, d);
        this.reps.push(b);
      }
      this.classOf[b] = d;
    }
  }

  /** Kernel pcs reachable from `pc` without reading a byte; `begin`: at the text's start. */
  private closure(from: readonly number[], begin: boolean, end: boolean, out: number[]): void {
    const stack = from.slice();
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (pc === 0 || this.mark[pc] === this.generation) continue;
      this.mark[pc] = this.generation;
      this.work++;
      const inst = this.prog.getInst(pc);
      switch (inst.op) {
        case ALT:
        case ALT_MATCH:
          stack.push(inst.arg, inst.out);
          break;
        case NOP:
        case CAPTURE:
          stack.push(inst.out);
          break;
        case EMPTY_WIDTH:
          if (inst.arg === EMPTY_BEGIN_TEXT) {
            if (begin) stack.push(inst.out);
          } else if (end) stack.push(inst.out);
          else out.push(pc); // a pending `$`: satisfied only at the end (`endIds`)
          break;
        case FAIL:
          break;
        default:
          out.push(pc); // a rune op or MATCH
      }
    }
  }

  private fresh(): void {
    this.generation++;
  }

  private outClosure(pc: number): Int32Array {
    let c = this.closures.get(pc);
    if (c === undefined) {
      const out: number[] = [];
      this.fresh();
      this.closure([this.prog.getInst(pc).out], false, false, out);
      c = Int32Array.from(out);
      this.closures.set(pc, c);
    }
    return c;
  }

  private matches(inst: Inst, byte: number): boolean {
    switch (inst.op) {
      case RUNE:
      case RUNE1:
        return inst.matchRune(byte);
      case RUNE_ANY:
        return true;
      case RUNE_ANY_NOT_NL:
        return byte !== 10;
      default:
        return false;
    }
  }

  build(): RegexSet | null {
    const classes = this.reps.length;
    // The restart: every state after the first byte also holds the set's start (an unanchored search starts at every
    // byte). It is the same in every state, so states are keyed and stepped without it: its step on each class is
    // computed once (`restartStep`), and its own match ids (a pattern matching the empty string) join every state's.
    const restart: number[] = [];
    this.fresh();
    this.closure([this.prog.start], false, false, restart);
    const inRestart = new Uint8Array(this.n);
    for (const pc of restart) inRestart[pc] = 1;
    const initial: number[] = [];
    this.fresh();
    this.closure([this.prog.start], true, false, initial);

    // States keyed by a hash of their sorted pcs (no key strings: building the DFA of 256 patterns made ~13,000).
    const byHash = new Map<number, number[]>();
    const states: Int32Array[] = [];
    const intern = (pcs: number[]): number | null => {
      pcs.sort((a, b) => a - b);
      let hash = 0x811c9dc5;
      for (const pc of pcs) hash = Math.imul(hash ^ pc, 0x01000193);
      const candidates = byHash.get(hash);
      if (candidates !== undefined) {
        for (const id of candidates) if (sameArray(states[id] as Int32Array, pcs)) return id;
      }
      if (states.length >= MAX_SET_STATES) return null;
      const id = states.length;
      states.push(Int32Array.from(pcs));
      if (candidates === undefined) byHash.set(hash, [id]);
      else candidates.push(id);
      return id;
    };
    // The first state is the start at the text's start (`^` holds there), restart pcs included: keyed apart.
    const start = intern(initial.map((pc) => -1 - pc));
    if (start === null) return null;
    const stepOf = (pcs: Iterable<number>, byte: number, g: number, next: number[]): void => {
      for (const pc of pcs) {
        this.work++;
        if (!this.matches(this.prog.getInst(pc), byte)) continue;
        for (const k of this.outClosure(pc)) {
          if (inRestart[k] === 1 || this.inState[k] === g) continue;
          this.inState[k] = g;
          next.push(k);
        }
      }
    };
    const restartStep: Int32Array[] = [];
    for (let c = 0; c < classes; c++) {
      const next: number[] = [];
      stepOf(restart, this.reps[c] as number, ++this.stateGeneration, next);
      restartStep.push(Int32Array.from(next));
    }
    const stride = classes + 1;
    const rows: Int32Array[] = [];
    for (let s = 0; s < states.length; s++) {
      const stored = states[s] as Int32Array;
      const pcs = s === start ? initial : stored;
      const row = new Int32Array(stride);
      for (let c = 0; c < classes; c++) {
        this.work += 8;
        const g = ++this.stateGeneration;
        const next: number[] = [];
        for (const k of restartStep[c] as Int32Array) {
          this.inState[k] = g;
          next.push(k);
        }
        // The first state holds the restart's pcs itself: their step is `restartStep`, already in.
        stepOf(s === start ? pcs.filter((pc) => inRestart[pc] !== 1) : pcs, this.reps[c] as number, g, next);
        this.work += next.length;
        if (this.work > this.maxWork) return null;
        const id = intern(next);
        if (id === null) return null;
        row[c] = id;
      }
      rows.push(row);
    }
    if (start !== 0) return null;
    states[start] = Int32Array.from(initial);
    // Per state (its own pcs, and the restart's but in the first state, which holds them): the ids of its MATCH pcs (matches ending there), and those a pending `$` adds at the end.
    const idStart = new Int32Array(states.length + 1);
    const endStart = new Int32Array(states.length + 1);
    const ids: number[] = [];
    const endIds: number[] = [];
    for (let s = 0; s < states.length; s++) {
      idStart[s] = ids.length;
      endStart[s] = endIds.length;
      const pending: number[] = [];
      for (const pc of s === start ? (states[s] as Int32Array) : [...(states[s] as Int32Array), ...restart]) {
        const inst = this.prog.getInst(pc);
        if (inst.op === MATCH) ids.push(inst.arg);
        else if (inst.op === EMPTY_WIDTH) pending.push(inst.out);
      }
      if (pending.length > 0) {
        const reached: number[] = [];
        this.fresh();
        this.closure(pending, false, true, reached);
        for (const pc of reached) {
          const inst = this.prog.getInst(pc);
          if (inst.op === MATCH) endIds.push(inst.arg);
        }
      }
    }
    idStart[states.length] = ids.length;
    endStart[states.length] = endIds.length;
    const table = new Int32Array(states.length * stride);
    rows.forEach((row, s) => table.set(row, s * stride));
    // The empty subject is the text's start and end at once: answered per pattern, once, here.
    const empty = new Uint8Array(this.patterns.length);
    this.patterns.forEach((_, i) => {
      empty[i] = this.matchesEmpty(i) ? 1 : 0;
    });
    return new CompiledSet(this.patterns, {
      table,
      stride,
      classOf: this.classOf,
      start,
      idStart,
      ids: Int32Array.from(ids),
      endStart,
      endIds: Int32Array.from(endIds),
      empty,
      classes,
      work: this.work,
    });
  }
}

/**
 * One set for literals (`contains "x"`, each a non-empty byte string) as the automaton of Aho and Corasick, made
 * complete: the same tables, pass and answers as `compileRegexSet` of their escaped patterns (set-patterns.ts), built
 * directly from the literals' trie, in (states × byte classes) steps instead of the subset construction's (states ×
 * classes × the patterns in progress), ~20× less for 256 literals. `patterns`: the slot patterns, in the literals'
 * order. Null when the trie would pass `MAX_SET_STATES` (the caller keeps the literals' total under it) or the build
 * `maxWork`.
 */
export function compileLiteralSet(
  literals: readonly string[],
  patterns: readonly string[],
  maxWork: number = MAX_SET_WORK,
): RegexSet | null {
  if (literals.length === 0 || literals.length > MAX_SET_PATTERNS || literals.some((l) => l.length === 0)) return null;
  const total = literals.reduce((n, l) => n + l.length, 0);
  if (total + 1 > MAX_SET_STATES) return null;
  // Byte classes: each byte some literal holds is its own class; every other byte is class 0 (it leads to the root).
  const classOf = new Uint8Array(256);
  let classes = 1;
  for (const l of literals)
    for (let i = 0; i < l.length; i++) {
      const b = l.charCodeAt(i) & 0xff;
      if (classOf[b] === 0) classOf[b] = classes++;
    }
  const stride = classes;
  const work = (total + 1) * stride + total;
  if (work > Math.min(maxWork, MAX_SET_WORK)) return null;
  // The trie: -1 is no edge yet (the BFS below completes every row).
  const table = new Int32Array((total + 1) * stride).fill(-1);
  const own: number[][] = [[]];
  let states = 1;
  literals.forEach((l, id) => {
    let s = 0;
    for (let i = 0; i < l.length; i++) {
      const at = s * stride + (classOf[l.charCodeAt(i) & 0xff] as number);
      let next = table[at] as number;
      if (next === -1) {
        next = states++;
        table[at] = next;
        own.push([]);
      }
      s = next;
    }
    (own[s] as number[]).push(id);
  });
  // Breadth first: a state's failure (the longest proper suffix that is a trie state) is done before it, so its
  // missing edges are its failure's, and its answers include its failure's.
  const fail = new Int32Array(states);
  const outputs: number[][] = own.map((ids) => ids.slice());
  const queue: number[] = [];
  for (let c = 0; c < stride; c++) {
    const next = table[c] as number;
    if (next === -1) table[c] = 0;
    else {
      fail[next] = 0;
      queue.push(next);
    }
  }
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head] as number;
    const f = fail[u] as number;
    (outputs[u] as number[]).push(...(outputs[f] as number[]));
    for (let c = 0; c < stride; c++) {
      const at = u * stride + c;
      const next = table[at] as number;
      const viaFailure = table[f * stride + c] as number;
      if (next === -1) table[at] = viaFailure;
      else {
        fail[next] = viaFailure;
        queue.push(next);
      }
    }
  }
  const idStart = new Int32Array(states + 1);
  const ids: number[] = [];
  for (let s = 0; s < states; s++) {
    idStart[s] = ids.length;
    ids.push(...(outputs[s] as number[]));
  }
  idStart[states] = ids.length;
  return new CompiledSet(patterns, {
    table: table.slice(0, states * stride),
    stride,
    classOf,
    start: 0,
    idStart,
    ids: Int32Array.from(ids),
    endStart: new Int32Array(states + 1),
    endIds: new Int32Array(0),
    empty: new Uint8Array(patterns.length),
    classes,
    work,
  });
}

function sameArray(a: Int32Array, b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface Tables {
  readonly table: Int32Array;
  readonly stride: number;
  readonly classOf: Uint8Array;
  readonly start: number;
  readonly idStart: Int32Array;
  readonly ids: Int32Array;
  readonly endStart: Int32Array;
  readonly endIds: Int32Array;
  readonly empty: Uint8Array;
  readonly classes: number;
  readonly work: number;
}

class CompiledSet implements RegexSet {
  readonly states: number;
  readonly classes: number;
  readonly idTotal: number;
  readonly work: number;
  /** The pass's visited match states (a generation per pass: no clearing). */
  private readonly seen: Int32Array;
  private pass = 0;

  constructor(
    readonly patterns: readonly string[],
    private readonly t: Tables,
  ) {
    this.states = t.idStart.length - 1;
    this.classes = t.classes;
    this.work = t.work;
    this.idTotal = t.ids.length + t.endIds.length;
    this.seen = new Int32Array(this.states);
  }

  match(subject: string): Uint8Array {
    const { table, stride, classOf, idStart, ids, endStart, endIds } = this.t;
    if (subject.length === 0) return this.t.empty.slice();
    const found = new Uint8Array(this.patterns.length);
    const pass = ++this.pass;
    const seen = this.seen;
    let state = this.t.start;
    const collect = (s: number): void => {
      seen[s] = pass;
      for (let i = idStart[s] as number; i < (idStart[s + 1] as number); i++) found[ids[i] as number] = 1;
    };
    if (idStart[state] !== idStart[state + 1]) collect(state);
    for (let i = 0; i < subject.length; i++) {
      // A byte string: every code unit is a byte (values.ts); `& 0xff` keeps the lookup in the table regardless.
      state = table[state * stride + (classOf[subject.charCodeAt(i) & 0xff] as number)] as number;
      if (seen[state] !== pass && idStart[state] !== idStart[state + 1]) collect(state);
    }
    for (let i = endStart[state] as number; i < (endStart[state + 1] as number); i++) found[endIds[i] as number] = 1;
    return found;
  }
}
