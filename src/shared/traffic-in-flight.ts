/**
 * How many traffic requests (zone traffic and the service endpoints, src/app.ts) this isolate is answering right now,
 * so that management work can wait for a moment without them (docs/custom-errors.md "Management calls take
 * turns with traffic").
 *
 * Why: a traffic request enters the isolate several times (when it arrives, when its zone is read, when its origin
 * answers, …), and each time it may find a management call's synchronous piece running. Waiting for a timer before
 * each piece lets the request in once, not every time: measured, eight draft previews of heavy rules still added
 * ~190–230 ms to another zone's plain GET, one piece per re-entry. A piece that starts only when no traffic request is
 * in flight (or after `quietWaitMs`, so that steady traffic cannot starve management calls) holds a request at most
 * once: the piece that was running when it arrived.
 */

/** Traffic requests being answered on this isolate. */
let inFlight = 0;
/** Management calls waiting for the isolate to be quiet, each woken once. */
const waiting = new Set<() => void>();

/** A traffic request began: call `trafficEnded()` when its answer is given, whatever it is. */
export function trafficBegan(): void {
  inFlight++;
}

/**
 * A traffic request's answer was given. Its body may still stream, and a watched stream or `waitUntil` work (the
 * analytics recorder) may still run some JavaScript: small pieces, which a turn may now run beside.
 */
export function trafficEnded(): void {
  inFlight--;
  if (inFlight > 0 || waiting.size === 0) return;
  for (const wake of [...waiting]) wake();
}

/** Traffic requests being answered now (tests count them). */
export function trafficInFlight(): number {
  return inFlight;
}

/**
 * Resolves when no traffic request is in flight on this isolate, or after `maxWaitMs` however busy it is (a busy
 * isolate still serves management calls, one piece per `maxWaitMs`).
 */
export function trafficQuiet(maxWaitMs: number): Promise<void> {
  if (inFlight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = (): void => {
      waiting.delete(wake);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(wake, maxWaitMs);
    waiting.add(wake);
  });
}
