/** `GET /openapi.json` (issue 5): an OpenAPI 3.1 document whose paths are the routes the Worker serves. */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, newAccount } from "./helpers";

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
    for (const [k, v] of Object.entries(value)) k === "$ref" && typeof v === "string" ? out.push(v) : refs(v, out);
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

  it("documents the seven tagging operations and the zone API, and each tagging path is routed", async () => {
    const doc = await fetchDoc("/openapi.json");
    const tagOps = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith("/accounts/"))
      .flatMap(([p, item]) => Object.keys(item).filter((m) => m !== "parameters").map((m) => `${m.toUpperCase()} ${p}`));
    expect(tagOps.sort()).toEqual(
      [
        "DELETE /accounts/{account_id}/tags",
        "GET /accounts/{account_id}/tags",
        "PUT /accounts/{account_id}/tags",
        "GET /accounts/{account_id}/tags/keys",
        "GET /accounts/{account_id}/tags/resources",
        "GET /accounts/{account_id}/tags/summary",
        "GET /accounts/{account_id}/tags/values/{tag_key}",
      ].sort(),
    );
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/zones/{zone}", "/zones/{zone}/preview/{code}"]));
    const a = newAccount();
    for (const op of tagOps) {
      const [method = "", path = ""] = op.split(" ");
      const concrete = path.replace("{account_id}", a).replace("{tag_key}", "env");
      const res = await call(method, concrete, method === "GET" ? {} : { body: {} });
      expect(res.body?.errors[0]?.code, op).not.toBe(7003);
    }
  });

  it("gives the key pattern in a form that accepts every script (u flag)", async () => {
    const doc = await fetchDoc("/openapi.json");
    const key = doc.components.schemas?.TagKey as { pattern: string };
    const pattern = new RegExp(key.pattern, "u");
    expect(pattern.test("हिन्दी")).toBe(true);
    expect(pattern.test("env name")).toBe(false);
  });
});
