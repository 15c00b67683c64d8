/**
 * The one timeout helper: races a promise against a timer without `Promise.race` and without leaving the timer
 * behind. Used on every proxied request (the origin's connect and read timeouts, docs/origin.md) and by rate
 * limiting's counter call (docs/origin.md: fail open when the counter does not answer in time).
 */

/** What `within` resolves to when the time ran out first. */
export const TIMEOUT: unique symbol = Symbol("timeout");

/**
 * `promise`'s value, or `TIMEOUT` if it has not settled within `ms`; a rejection is passed on as it is. One promise
 * and one timer, cleared as soon as `promise` settles, so the timer never outlives the race.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(TIMEOUT), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
