/**
 * A Stainless-generated SDK's retry sleeps, recorded and ended at once. The SDKs sleep with `setTimeout`; a sleep of
 * 20 s or more is only ever a retry wait in these tests (the zones' timeouts are under 1 s and the SDKs' request
 * timeout 10 s), so it is recorded and run at once, and a test reads the waits the SDK chose without waiting them.
 * Shorter timers run as asked. Undone by `vi.restoreAllMocks()`.
 */
import { vi } from "vitest";

export function recordSleeps(): number[] {
  const waits: number[] = [];
  const real = globalThis.setTimeout;
  vi.spyOn(globalThis, "setTimeout").mockImplementation((handler: () => void, ms?: number) => {
    if (ms === undefined || ms < 20_000) return real(handler, ms);
    waits.push(ms);
    return real(handler, 0);
  });
  return waits;
}
