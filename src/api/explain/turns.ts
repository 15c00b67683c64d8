/**
 * Management evaluation takes turns with traffic (docs/custom-errors.md "Management calls take turns with traffic").
 *
 * A replay, a draft preview or a trace evaluates rules synchronously on the isolate that also answers zone traffic,
 * and re2js cannot be interrupted: a replay of 1,000 records used to hold another zone's request for seconds. So
 * every such call
 *   - evaluates each run (a replayed record, one of a preview's formats, a trace's request phases) within
 *     `MANAGEMENT_BUDGET.runUnits`, a fifth of a request's budget (src/rules/budget.ts), and a replay within
 *     `replayUnits` in all; what needs more is not evaluated and the answer says `truncated: true`;
 *   - runs its evaluation in turns of at most `turnUnits` units (plus the run that crossed it) and `turnRuns` runs,
 *     and between two turns waits for a timer, so every request that arrived meanwhile runs first;
 *   - takes turns one call at a time per isolate, first come first served: however many tokens evaluate at once,
 *     traffic waits for one turn, not for one per call;
 *   - begins a turn only when no traffic request is in flight on the isolate (src/shared/traffic-in-flight.ts), or
 *     once it has waited `quietWaitMs` for that: a request enters the isolate several times (arrival, its zone
 *     read, its origin's answer), and a turn between two of those would hold it again each time;
 *   - reads its body (`pacedBodyBytes`; decoding it is part of its first piece) in steps of `bodyBytesPerStep`, a timer between two, and only while no
 *     traffic request is in flight (up to `quietWaitMs` of waiting in all): eight bodies near 1 MiB already
 *     buffered are read chunk after chunk without the event loop polling for anything else, and a new request
 *     waited outside the Worker until all of them were read (measured: 160 ms on a quiet machine).
 * Units are the engine's measure of its work (src/rules/budget.ts: the slowest regex run measured does ~45,000 per
 * ms), so a turn is bounded whatever the rules are; the rest of a run (rendering an answer) is small and bounded by
 * `turnRuns`.
 */
import { MAX_REQUEST_UNITS, requestBudget } from "../../rules/budget";
import { MAX_API_BODY_BYTES, readBodyBytes } from "../kit/body";
import type { ApiFailure } from "../kit/envelope";
import type { Result } from "../../shared/result";
import { trafficInFlight, trafficQuiet } from "../../shared/traffic-in-flight";

export const MANAGEMENT_BUDGET = {
  /** Units one run may spend: a fifth of a request's (MAX_REQUEST_UNITS), ~44 ms at the slowest rate measured. */
  runUnits: MAX_REQUEST_UNITS / 5,
  /** Units one replay may spend in all: two requests' worth, in turns. */
  replayUnits: MAX_REQUEST_UNITS * 2,
  /** A turn ends once it has spent this many units… */
  turnUnits: 1_000_000,
  /** …or run this many runs. */
  turnRuns: 16,
  /**
   * Expressions a draft preview compiles in one turn (draft-cache.ts). Compiling is not counted in units; the
   * costliest expression measured (a regex over a 144-fold `concat()` of the path) compiles in ~0.7–3 ms, so a turn
   * stays within ~25 ms.
   */
  compilesPerTurn: 8,
  /**
   * …and at most this many characters of expression source a turn (at least one expression): compiling and analysing
   * an expression costs in proportion to its length, and a long one (a 144-fold `concat()`, ~3,700 characters)
   * compiles in several milliseconds on a loaded machine, so eight of those would be one long turn.
   */
  compileCharsPerTurn: 8_192,
  /**
   * How long a turn waits for the isolate's traffic to be answered before it begins anyway (a busy isolate still
   * serves management calls, a turn per this many ms): a request shorter than this waits for at most one turn.
   */
  quietWaitMs: 100,
  /**
   * Bytes of a management call's body read between two timers (`pacedBodyBytes`): the runtime hands a body over in
   * chunks of a few KiB, ~75 µs of the isolate's time each on a quiet machine, so eight bodies at once read ~10 ms
   * between two polls for new requests.
   */
  bodyBytesPerStep: 65_536,
} as const;

/** One call's turn; `end()` lets the next call (or this one's next turn) go, after traffic. */
export interface Turn {
  readonly end: () => void;
}

/** The last turn asked for on this isolate: each waits for the one before it. */
let tail: Promise<void> = Promise.resolve();

/** What the turns of this isolate did since it started (for tests: never reset). */
interface TurnStats {
  /** Turns begun. */
  taken: number;
  /** Turns that found traffic in flight and waited for it. */
  heldByTraffic: number;
  /** Turns that began with traffic still in flight, after waiting `quietWaitMs` for it. */
  besideTraffic: number;
  /** Steps of `bodyBytesPerStep` a management call's body was read in after the first (each after a timer). */
  bodySteps: number;
  /** Times a management call's body stopped reading to let the traffic in flight be answered first. */
  bodyPauses: number;
}

const stats: TurnStats = { taken: 0, heldByTraffic: 0, besideTraffic: 0, bodySteps: 0, bodyPauses: 0 };

/** A copy of the counters. */
export function turnStats(): TurnStats {
  return { ...stats };
}

/** How a turn lets traffic go first: a timer fires after the requests already queued on the isolate. */
const afterTraffic = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Waits until every turn asked for before has ended, queued traffic has run and no traffic request is in flight (at
 * most `quietWaitMs` for the last); then the caller's turn begins.
 */
export async function takeTurn(): Promise<Turn> {
  const before = tail;
  let end = (): void => undefined;
  tail = new Promise<void>((resolve) => (end = resolve));
  await before;
  const deadline = Date.now() + MANAGEMENT_BUDGET.quietWaitMs;
  await afterTraffic();
  // A request that arrived during the timer is in flight now: wait for it too, within the same deadline.
  if (trafficInFlight() > 0) stats.heldByTraffic++;
  while (trafficInFlight() > 0 && Date.now() < deadline) {
    await trafficQuiet(deadline - Date.now());
    await afterTraffic();
  }
  stats.taken++;
  if (trafficInFlight() > 0) stats.besideTraffic++;
  return { end };
}

/**
 * A management call's body (up to 1 MiB, `readBodyBytes`), read in steps of `bodyBytesPerStep`: before each step it
 * waits for a timer, so the isolate's event loop polls for new requests (a body already buffered is read chunk after
 * chunk without one: eight of them held a new request outside the Worker for 160 ms), and before each chunk it waits
 * while traffic is in flight, `quietWaitMs` in all at most (a busy isolate still reads management bodies). Reading is
 * not a turn: other calls' turns and bodies go on meanwhile, and a client that sends its body slowly holds nothing.
 */
export function pacedBodyBytes(request: Request): Promise<Result<Uint8Array, ApiFailure>> {
  let waited = 0;
  let stepEnd = MANAGEMENT_BUDGET.bodyBytesPerStep;
  const quiet = async (): Promise<void> => {
    stats.bodyPauses++;
    const started = Date.now();
    await trafficQuiet(MANAGEMENT_BUDGET.quietWaitMs - waited);
    waited += Math.max(1, Date.now() - started);
  };
  const mayWait = (): boolean => trafficInFlight() > 0 && waited < MANAGEMENT_BUDGET.quietWaitMs;
  return readBodyBytes(request, MAX_API_BODY_BYTES, (size) => {
    if (size >= stepEnd) {
      stepEnd = size + MANAGEMENT_BUDGET.bodyBytesPerStep;
      stats.bodySteps++;
      return afterTraffic().then(() => (mayWait() ? quiet() : undefined));
    }
    return mayWait() ? quiet() : undefined;
  });
}

/**
 * One synchronous piece of a management call that is not an evaluation (validating and compiling a draft, linting it,
 * writing the answer) in a turn of its own: however many calls run at once, traffic waits for one such piece, never
 * for one of each call queued back to back.
 */
export async function inTurn<T>(piece: () => T): Promise<T> {
  const turn = await takeTurn();
  try {
    return piece();
  } finally {
    turn.end();
  }
}

/**
 * A call's evaluation in turns: `run(fn)` runs one evaluation in the current turn, first ending it and waiting for
 * the next when it is spent. `close()` ends the last turn (always call it: a turn never ended holds every other
 * management call of the isolate).
 */
export class Turns {
  private turn: Turn | null = null;
  private units = 0;
  private runs = 0;

  /** Runs `fn` (one evaluation) in a turn; `fn` answers with the units it spent. */
  async run<T>(fn: () => Promise<{ readonly value: T; readonly units: number }>): Promise<T> {
    if (this.turn !== null && (this.units >= MANAGEMENT_BUDGET.turnUnits || this.runs >= MANAGEMENT_BUDGET.turnRuns))
      this.close();
    if (this.turn === null) {
      this.turn = await takeTurn();
      this.units = 0;
      this.runs = 0;
    }
    const { value, units } = await fn();
    this.units += units;
    this.runs += 1;
    return value;
  }

  close(): void {
    this.turn?.end();
    this.turn = null;
  }
}

/**
 * Caps what `request`'s evaluation may spend at `units` (src/rules/budget.ts `requestBudget`: every phase of one
 * request draws on the one budget kept for its Request object). Call before the request is evaluated.
 */
export function capBudget(request: Request, units: number): void {
  const budget = requestBudget(request);
  budget.remaining = Math.min(budget.remaining, units);
}
