import { describe, expect, it } from "vitest";
import { isRayId, newRayId } from "../../../src/shared/ray";

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
