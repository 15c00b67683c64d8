/**
 * "Compile once per config version" (AGENTS.md) for custom error rules: the same compiled value for the same zone
 * object and for a re-read document of the same version (the zone cache gets a new object every 10 s), a new one
 * for a new version.
 */
import { describe, expect, it } from "vitest";
import { compiledCustomErrors } from "../../../../src/edge/custom-errors/compiled";
import { rulesetSection } from "../../../../src/state/zone/rulesets/stored";
import { parseDocument } from "../../../../src/state/zone/store";
import { ZONE_DOC_SCHEMA, type Zone } from "../../../../src/state/zone/schema";

function zone(version: number, expression: string): Zone {
  const rule = {
    id: "r1",
    version: "1",
    expression,
    action: "serve_error",
    action_parameters: { content: "{}", content_type: "application/json" },
    description: "",
    enabled: true,
    last_updated: "2026-11-23T00:00:00Z",
  };
  const parsed = parseDocument("compiled.example", {
    schema: ZONE_DOC_SCHEMA,
    version,
    zone: "compiled.example",
    modified_on: "2026-11-23T00:00:00Z",
    settings: { plan: "pro", origin: "http://127.0.0.1:9" },
    [rulesetSection("http_custom_errors")]: { id: "rs", version: "1", last_updated: "", rules: [rule] },
  });
  if (!parsed.ok) throw new Error(parsed.error.cause);
  return parsed.value;
}

describe("compiledCustomErrors", () => {
  it("compiles once per (zone, version): same object, a re-read of the same version, then a new version", () => {
    const first = zone(1, 'http.request.uri.path eq "/a"');
    const compiled = compiledCustomErrors(first);
    expect(compiled.rules.map((r) => r.id)).toEqual(["r1"]);
    expect(compiledCustomErrors(first)).toBe(compiled);
    expect(compiledCustomErrors(zone(1, 'http.request.uri.path eq "/a"'))).toBe(compiled);
    const next = compiledCustomErrors(zone(2, 'http.request.uri.path eq "/b"'));
    expect(next).not.toBe(compiled);
    expect(next.version).toBe(2);
  });
});
