/**
 * The conformance suite: every vector of fixtures/rules-vectors.json (copied from the shared research data,
 * docs/rules-language.md) must pass. A vector we had to amend carries an `amended` note saying why; there are
 * no skips.
 */
import { describe, expect, it } from "vitest";
import vectors from "../../../fixtures/rules-vectors.json";
import { compile } from "../../../src/rules";
import { vectorScheme, type Vector } from "./vector-scheme";

const all = vectors as unknown as readonly Vector[];

describe("rules conformance vectors", () => {
  it("has every vector of the research file, and this repository's additions", () => {
    // 344 from the research file; 4 added for the evaluation-budget work (2026-11-23) (`\x{…}` is not a repetition), 34 for the draft-preview work (2026-11-23) (the 2026
    // additions: coalesce(), concat() up to 32 arguments, dynamic values on both sides), sourced in the file.
    expect(all.length).toBe(382);
  });

  it.each(all.map((v, i) => [i, v.expr, v] as const))("#%i %s", (_i, _expr, vector) => {
    const { scheme, context } = vectorScheme(vector.fields);
    const rule = compile(vector.expr, scheme, {
      ...(vector.settings?.max_nesting_depth !== undefined
        ? { maxNestingDepth: vector.settings.max_nesting_depth }
        : {}),
      ...(vector.settings?.wildcard_star_limit !== undefined
        ? { wildcardStarLimit: vector.settings.wildcard_star_limit }
        : {}),
    });
    if (vector.expect === "parse_error" || vector.expect === "type_error") {
      expect(rule.ok, "expected a compile error").toBe(false);
      if (rule.ok) return;
      expect(rule.error.kind === "type" ? "type_error" : "parse_error", rule.error.message).toBe(vector.expect);
      return;
    }
    if (!rule.ok) expect.fail(`compile error: ${rule.error.kind}: ${rule.error.message}`);
    expect(rule.value.matches(context)).toBe(vector.expect);
  });
});
