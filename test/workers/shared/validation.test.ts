/** The validation vocabulary (src/shared/validation.ts): the capped issue list. */
import { describe, expect, it } from "vitest";
import { IssueList } from "../../../src/shared/validation";

describe("IssueList", () => {
  it("keeps the first `cap` issues and counts the rest, never holding more than `cap`", () => {
    const issues = new IssueList(3);
    for (let i = 0; i < 50_000; i++) issues.add("unknown-field", `k${i}`, "is not a field");
    expect(issues.count).toBe(50_000);
    expect(issues.issues.listed.map((i) => i.path)).toEqual(["k0", "k1", "k2"]);
    expect(issues.issues.more).toBe(49_997);
  });
});
