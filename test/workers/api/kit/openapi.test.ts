/**
 * `GET /openapi.json`: an OpenAPI 3.1 document whose operations are exactly the routes the Worker serves (the hardening work (2026-11-22):
 * a document that promises a route that does not exist is a defect), compared in both directions.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../../../../src/app";
import { routeSignatures } from "../../../../src/api/kit/mount";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

async function fetchDoc(path: string): Promise<Doc> {
  const res = await exports.default.fetch(`http://localhost${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
  return res.json<Doc>();
}

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

describe("OpenAPI document", () => {
  it("is served without a token, with and without /client/v4", async () => {
    const doc = await fetchDoc("/openapi.json");
    expect(doc.openapi).toBe("3.1.0");
    expect(await fetchDoc("/client/v4/openapi.json")).toEqual(doc);
  });

  it("resolves every $ref", async () => {
    const doc = await fetchDoc("/openapi.json");
    for (const r of refs(doc)) {
      const [, , section, name] = r.split("/");
      expect(doc.components[section ?? ""]?.[name ?? ""], r).toBeDefined();
    }
  });

  it("documents exactly the routes of the route table, in both directions", async () => {
    const doc = await fetchDoc("/openapi.json");
    // Path parameters are compared by position: the document says `{account_id}` where the route says `:account`.
    const shape = (op: string): string => op.replace(/\{[^}]+\}/g, "{}");
    const documented = Object.entries(doc.paths)
      .flatMap(([p, item]) =>
        Object.keys(item)
          .filter((m) => m !== "parameters")
          .map((m) => `${m.toUpperCase()} ${p}`),
      )
      .map(shape)
      .sort();
    const routed = routeSignatures(api.routes).map(shape).sort();
    expect(documented).toEqual(routed);
    expect(routed).toContain("GET /zones/{}");
    expect(routed).toContain("PUT /accounts/{}/tags");
  });

  it("every documented operation is routed by the Worker (not 404 7003 with a token)", async () => {
    const doc = await fetchDoc("/openapi.json");
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => m !== "parameters")) {
        const concrete = path
          .replace("{account_id}", "0123456789abcdef0123456789abcdef")
          .replace("{tag_key}", "env")
          .replace("{zone}", "openapi-probe.example");
        const res = await exports.default.fetch(`http://localhost${concrete}`, {
          method: method.toUpperCase(),
          headers: { Authorization: "Bearer test-admin-token" },
        });
        const body = await res.json<{ errors: { code: number }[] }>().catch(() => ({ errors: [] }));
        expect(res.status === 404 && body.errors[0]?.code === 7003, `${method} ${path}`).toBe(false);
      }
    }
  });

  it("documents dry_run on exactly the writes whose routes rehearse (every zone write, no tags write)", async () => {
    const doc = await fetchDoc("/openapi.json");
    const shape = (op: string): string => op.replace(/\{[^}]+\}|:\w+/g, "{}");
    const documented = Object.entries(doc.paths)
      .flatMap(([p, item]) =>
        Object.entries(item)
          .filter(([, op]) => JSON.stringify((op as { parameters?: unknown }).parameters ?? []).includes("DryRun"))
          .map(([m]) => shape(`${m.toUpperCase()} ${p}`)),
      )
      .sort();
    const routed = routeSignatures(api.routes.filter((r) => r.dryRun === true))
      .map(shape)
      .sort();
    expect(documented).toEqual(routed);
    // Every write (a route needing a write permission) of a zone rehearses; the tagging API's writes do not.
    const writes = api.routes.filter((r) => r.permission.endsWith(":write"));
    for (const route of writes) {
      expect(route.dryRun === true, `${route.method} ${route.path}`).toBe(route.permission === "zones:write");
    }
    expect(routed).toContain("PUT /zones/{}/rulesets/phases/{}/entrypoint");
  });

  it("gives the key pattern in a form that accepts every script (u flag)", async () => {
    const doc = await fetchDoc("/openapi.json");
    const key = doc.components.schemas?.TagKey as { pattern: string };
    const pattern = new RegExp(key.pattern, "u");
    expect(pattern.test("हिन्दी")).toBe(true);
    expect(pattern.test("env name")).toBe(false);
  });
});
