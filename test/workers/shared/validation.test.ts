/** The validation vocabulary (src/shared/validation.ts): the capped issue list and the typed readers. */
import { describe, expect, it } from "vitest";
import {
  IssueList,
  optional,
  readArray,
  readBoolean,
  readEnum,
  readInt,
  readNumber,
  readObject,
  readString,
  unknownKeys,
} from "../../../src/shared/validation";

describe("IssueList", () => {
  it("keeps the first `cap` issues and counts the rest, never holding more than `cap`", () => {
    const issues = new IssueList(3);
    for (let i = 0; i < 50_000; i++) issues.add("unknown-field", `k${i}`, "is not a field");
    expect(issues.count).toBe(50_000);
    expect(issues.full).toBe(true);
    expect(issues.issues.listed.map((i) => i.path)).toEqual(["k0", "k1", "k2"]);
    expect(issues.issues.more).toBe(49_997);
  });
});

describe("readers", () => {
  it("narrow or answer one issue with the kind, the path and the validator's message", () => {
    expect(readObject({ a: 1 }, "body")).toEqual({ ok: true, value: { a: 1 } });
    expect(readObject([], "body")).toEqual({
      ok: false,
      error: { kind: "wrong-type", path: "body", message: "must be a JSON object" },
    });
    expect(readString("abc", "s", { max: 3 })).toEqual({ ok: true, value: "abc" });
    expect(readString("abcd", "s", { max: 3, message: "too long" })).toEqual({
      ok: false,
      error: { kind: "out-of-range", path: "s", message: "too long" },
    });
    expect(readString(1, "s").ok).toBe(false);
    expect(readInt(1.5, "n", { min: 0, max: 9 })).toMatchObject({ ok: false, error: { kind: "wrong-type" } });
    expect(readInt(10, "n", { min: 0, max: 9 })).toMatchObject({
      ok: false,
      error: { kind: "out-of-range", message: "must be an integer from 0 to 9" },
    });
    expect(readNumber(0.5, "n", { min: 0, max: 1 })).toEqual({ ok: true, value: 0.5 });
    expect(readNumber(Number.NaN, "n", { min: 0, max: 1 }).ok).toBe(false);
    expect(readBoolean("true", "b").ok).toBe(false);
    expect(readEnum("b", "e", ["a", "b"] as const)).toEqual({ ok: true, value: "b" });
    expect(readEnum("c", "e", ["a", "b"] as const)).toMatchObject({
      ok: false,
      error: { kind: "not-allowed", message: "must be one of a, b" },
    });
    expect(readArray([1, 2], "xs", { max: 1 })).toMatchObject({ ok: false, error: { kind: "out-of-range" } });
    expect(optional(undefined, (v) => readInt(v, "n", { min: 0, max: 1 }))).toEqual({ ok: true, value: undefined });
    expect(unknownKeys({ a: 1, b: 2, c: 3 }, new Set(["b"]))).toEqual(["a", "c"]);
  });
});
