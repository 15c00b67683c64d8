import { describe, expect, it } from "vitest";
import { currentLane, isRayId, LANE_MS, newRayId } from "../../../src/shared/ray";

describe("newRayId (docs/errors.md)", () => {
  it("is 16 lower-case hex characters", () => {
    for (let i = 0; i < 1000; i++) expect(newRayId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it("is random per call after its lane: 10,000 ids, no repeat, every hex digit in every position from the fifth", () => {
    const ids = Array.from({ length: 10_000 }, newRayId);
    expect(new Set(ids).size).toBe(ids.length);
    for (let position = 4; position < 16; position++) {
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
  });

  it('starts with the isolate\'s lane, drawn again every LANE_MS (docs/analytics.md "Shards")', () => {
    const id = newRayId();
    expect(id.slice(0, 4)).toBe(currentLane());
    const start = Date.now() + 10 * LANE_MS;
    const lanes = Array.from({ length: 400 }, (_, i) => currentLane(start + i * LANE_MS));
    // Each lane holds for LANE_MS, then a new one is drawn: 400 draws of 65,536 values give every first digit.
    expect(currentLane(start + 399 * LANE_MS + LANE_MS - 1)).toBe(lanes[399]);
    expect(new Set(lanes.map((lane) => lane[0])).size).toBe(16);
    expect(lanes.every((lane) => /^[0-9a-f]{4}$/.test(lane))).toBe(true);
  });
});

describe("isRayId", () => {
  it("accepts exactly 16 lower-case hex characters, every id newRayId makes", () => {
    expect(isRayId("0123456789abcdef")).toBe(true);
    for (let i = 0; i < 100; i++) expect(isRayId(newRayId())).toBe(true);
  });

  it("refuses upper case, other lengths, other characters and surrounding text", () => {
    for (const text of [
      "0123456789ABCDEF",
      "0123456789abcde",
      "0123456789abcdef0",
      "0123456789abcdeg",
      "",
      " 0123456789abcdef",
      "0123456789abcdef\n",
      "0123456789abcdef-DFW",
    ]) {
      expect(isRayId(text), JSON.stringify(text)).toBe(false);
    }
  });
});
