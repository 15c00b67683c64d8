/**
 * Every bound written once (docs/architecture.md "Request schemas"): the OpenAPI document served by the Worker is
 * walked, and
 *
 * - every schema named with `named()` appears as its component exactly as zod emits it from the schema the
 *   endpoint validates with (no hand-written copy beside or over it);
 * - every numeric bound, pattern and enum written by hand elsewhere in the document (a path's parameters, a
 *   response, a component not yet made from a schema) is counted where it stands, and the counts must equal the
 *   table below: what is left to convert. A hand-written bound added anywhere fails here; converting a resource
 *   empties its rows.
 */
import { describe, expect, it } from "vitest";
import { schemaComponents, type Json } from "../../../../src/api/kit/openapi";
import { apiFetch } from "../../support/envelope";

/** The JSON Schema keywords that state a bound, a pattern or a closed list of values. */
const BOUND_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "pattern",
  "enum",
  "multipleOf",
]);

/**
 * Hand-written bounds left in the document, by where they stand (a path, or `#/components/<kind>/<name>`): none, every
 * bound is a schema's. A hand-written one added anywhere fails here.
 */
const HAND_WRITTEN_LEFT: Readonly<Record<string, number>> = {};

type Doc = { readonly [key: string]: Json };

function isObject(value: Json | undefined): value is Doc {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Counts the bound keywords under `value` (an `example` is data, not a schema: not walked). */
function countBounds(value: Json | undefined): number {
  if (Array.isArray(value)) return (value as readonly Json[]).reduce<number>((n, item) => n + countBounds(item), 0);
  if (!isObject(value)) return 0;
  let count = 0;
  for (const [key, item] of Object.entries(value)) {
    if (key === "example" || key === "examples" || key === "default") continue;
    if (BOUND_KEYWORDS.has(key)) count++;
    count += countBounds(item);
  }
  return count;
}

describe("every bound is written once", () => {
  it("the document's components made from schemas are zod's output, and hand-written bounds are only those left", async () => {
    const response = await apiFetch("GET", "/openapi.json", undefined, {});
    const document = await response.json<Doc>();
    const components = document.components as Doc;
    const schemas = components.schemas as Doc;

    const emitted = schemaComponents();
    expect(Object.keys(emitted).length).toBeGreaterThan(0);
    for (const [id, schema] of Object.entries(emitted)) expect({ id, schema: schemas[id] }).toEqual({ id, schema });

    const left: Record<string, number> = {};
    const tally = (where: string, value: Json | undefined): void => {
      const count = countBounds(value);
      if (count > 0) left[where] = count;
    };
    for (const [path, item] of Object.entries(document.paths as Doc)) tally(path, item);
    for (const [kind, byName] of Object.entries(components)) {
      if (!isObject(byName)) continue;
      for (const [name, value] of Object.entries(byName)) {
        if (kind === "schemas" && name in emitted) continue;
        tally(`#/components/${kind}/${name}`, value);
      }
    }
    expect(left).toEqual(HAND_WRITTEN_LEFT);
    // The first request builds the whole document and a busy machine may take seconds: not a timing test.
  }, 60_000);

  it('the tag policy\'s limits are bounds of the document (docs/tags-api.md "Policies")', async () => {
    const document = await (await apiFetch("GET", "/openapi.json", undefined, {})).json<Doc>();
    const policy = ((document.components as Doc).schemas as Doc).TagPolicyBody as Doc;
    const at = (value: Json | undefined, ...path: (string | number)[]): Json | undefined =>
      path.reduce<Json | undefined>((node, key) => {
        if (node === undefined || node === null || typeof node !== "object") return undefined;
        return (node as Record<string | number, Json>)[key];
      }, value);
    const field = (name: string): Json | undefined => at(policy, "properties", name, "anyOf", 0);
    // allowed_values.*.values ≤ 1,000; a pattern ≤ 256 characters and ≤ 100 of them; required_keys.* ≤ 1,000.
    expect(at(field("allowed_values"), "additionalProperties", "anyOf", 0, "properties", "values", "maxItems")).toBe(
      1000,
    );
    expect(at(field("allowed_values"), "additionalProperties", "anyOf", 1, "properties", "pattern", "maxLength")).toBe(
      256,
    );
    expect(at(field("allowed_values"), "x-max-patterns")).toBe(100);
    expect(at(field("required_keys"), "additionalProperties", "maxItems")).toBe(1000);
    expect(at(field("allowed_keys"), "maxItems")).toBe(1000);
    expect(at((document.components as Doc).schemas, "TagKey", "maxLength")).toBe(256);
    expect(at((document.components as Doc).schemas, "TagValue", "maxLength")).toBe(1024);
  }, 60_000);
});
