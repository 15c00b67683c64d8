import { describe, expect, it } from "vitest";
import { newRayId } from "../../../src/shared/ray";

describe("newRayId (docs/errors.md)", () => {
  it("is 16 lower-case hex characters", () => {
    for (let i = 0; i < 1000; i++) expect(newRayId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it("is random per call: 10,000 ids, no repeat, every hex digit in every position", () => {
    const ids = Array.from({ length: 10_000 }, newRayId);
    expect(new Set(ids).size).toBe(ids.length);
    for (let position = 0; position < 16; position++) {
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
  });
});
