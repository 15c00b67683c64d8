/**
 * The isolate's count of traffic in flight (src/shared/traffic-in-flight.ts), which management turns wait on
 * (docs/custom-errors.md "Management calls take turns with traffic"). Counted, never timed: the waits below are a
 * minute long, so nothing here resolves by the clock.
 */
import { describe, expect, it } from "vitest";
import { trafficBegan, trafficEnded, trafficInFlight, trafficQuiet } from "../../../src/shared/traffic-in-flight";

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

describe("traffic in flight", () => {
  it("is quiet at once when nothing is in flight", async () => {
    expect(trafficInFlight()).toBe(0);
    let quiet = false;
    void trafficQuiet(60_000).then(() => (quiet = true));
    await ticks(1);
    expect(quiet).toBe(true);
  });

  it("a wait ends when the last request in flight ends, not before", async () => {
    trafficBegan();
    trafficBegan();
    const woken: number[] = [];
    void trafficQuiet(60_000).then(() => woken.push(1));
    void trafficQuiet(60_000).then(() => woken.push(2));
    await ticks(20);
    expect(woken).toEqual([]);
    trafficEnded();
    await ticks(20);
    expect(woken).toEqual([]);
    trafficEnded();
    await ticks(1);
    expect(woken.sort()).toEqual([1, 2]);
    expect(trafficInFlight()).toBe(0);
  });

  it("a wait ends after its longest wait however busy the isolate is", async () => {
    trafficBegan();
    try {
      await trafficQuiet(1);
      expect(trafficInFlight()).toBe(1);
    } finally {
      trafficEnded();
    }
  });
});
