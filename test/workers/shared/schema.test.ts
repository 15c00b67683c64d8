/**
 * The request-schema kit's parse (src/shared/schema.ts, docs/architecture.md "Request schemas"): the order and kinds
 * of the refusals it lists, where the schemas of the endpoints rely on them.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import {
  absent,
  answerSchemasMade,
  API_SCHEMAS,
  fields,
  later,
  oneOf,
  parseAt,
  parseWith,
} from "../../../src/shared/schema";

const PARAMETERS = fields(
  {
    content: absent("cannot be used with overlay"),
    status_code: absent("keeps its status"),
    overlay: fields({ detail: z.optional(z.string()) }, "is not an overlay field"),
  },
  "is not a parameter",
);

const listed = (value: unknown) => {
  const parsed = parseWith(PARAMETERS, value);
  return parsed.ok ? [] : parsed.error.listed.map((i) => `${i.kind} ${i.path}: ${i.message}`);
};

describe("parseWith", () => {
  it("lists an object's refused keys, unknown or absent, together in the order the body gives them", () => {
    expect(listed({ status_code: 500, overlay: { detail: 1 }, x: 1, content: "a" })).toEqual([
      "not-allowed status_code: keeps its status",
      "unknown-field x: is not a parameter",
      "not-allowed content: cannot be used with overlay",
      "wrong-type overlay.detail: must be a string",
    ]);
    expect(listed({ content: null, status_code: 500 })).toEqual([
      "not-allowed content: cannot be used with overlay",
      "not-allowed status_code: keeps its status",
      "missing overlay: must be a JSON object",
    ]);
    expect(listed({ status_code: 500, content: "a", overlay: {} })).toEqual([
      "not-allowed status_code: keeps its status",
      "not-allowed content: cannot be used with overlay",
    ]);
  });

  it("names a value not given as missing, and a refinement's own kind", () => {
    const schema = z.object({
      kind: oneOf(["zone"]),
      name: z.unknown().check(z.refine((v) => v !== undefined, { error: "is required", params: { kind: "missing" } })),
      id: z.string().check(z.refine((v) => v !== "taken", { error: "is taken", params: { kind: "duplicate" } })),
      other: z.string().check(z.refine((v) => v !== "bad", { error: "is bad" })),
    });
    const parsed = parseWith(schema, { id: "taken", other: "bad" });
    expect(parsed.ok ? [] : parsed.error.listed.map((i) => `${i.kind} ${i.path}`)).toEqual([
      "missing kind",
      "missing name",
      "duplicate id",
      "invalid other",
    ]);
  });

  it("takes a schema made on its first use: made by the first parse, once, and the same one for the document", () => {
    let makes = 0;
    const body = later(() => {
      makes++;
      return fields({ port: z.int() }, "is not a field");
    });
    expect(makes).toBe(0);
    expect(parseWith(body, { port: 8080 })).toEqual({ ok: true, value: { port: 8080 } });
    const refused: string[] = [];
    parseAt(body, { port: "80", x: 1 }, "origin", (kind, path) => refused.push(`${kind} ${path}`));
    expect(refused).toEqual(["unknown-field origin.x", "wrong-type origin.port"]);
    answerSchemasMade();
    expect(makes).toBe(1);
  });

  it("names a later schema as it is made", () => {
    const port = later(() => z.int(), { id: "LaterPort", example: 8080 });
    expect(API_SCHEMAS.get(port())).toEqual({ id: "LaterPort", example: 8080 });
  });
});
