/**
 * The MCP endpoint `/mcp` on an API host (docs/mcp.md), driven by the official MCP TypeScript SDK's client and
 * Streamable HTTP transport against a real `wrangler dev` of this project: tools per token, a Ray produced by real
 * traffic to a refused origin explained, answers equal to the REST API's, bad arguments as `isError` results.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../servers/ports.ts";
import { startWranglerDev, type WranglerDev } from "./support/wrangler-dev";

const ADMIN = "mcp-admin-token";
const READER = "mcp-shop-reader";
const ACCOUNT = "0123456789abcdef0123456789abcdef";
const SHOP = "shop.test";
const OTHER = "other.test";

interface ToolResult {
  readonly isError?: boolean;
  readonly content: readonly { type: string; text: string }[];
  readonly structuredContent?: Record<string, unknown>;
}

let dev: WranglerDev;

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${dev.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** One request of zone traffic with its own Host (Node's fetch drops a Host header). */
function traffic(host: string, path: string): Promise<{ status: number; ray: string | undefined }> {
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: dev.port, path, headers: { Host: host, Accept: "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => done({ status: res.statusCode ?? 0, ray: res.headers["ray-id"] as string | undefined }));
      },
    );
    req.on("error", fail);
    req.end();
  });
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "edge-errors-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

let ray: string;

beforeAll(async () => {
  const sha256 = createHash("sha256").update(READER).digest("hex");
  dev = await startWranglerDev({
    ADMIN_TOKEN: ADMIN,
    API_TOKENS: JSON.stringify([{ name: "shop-reader", sha256, zones: [SHOP], permissions: ["zones:read"] }]),
  });
  // An origin that refuses connections: a loopback address (not an API host) and a port nothing listens on.
  const refused = `http://127.0.0.2:${await freePort()}`;
  for (const zone of [SHOP, OTHER]) {
    const put = await api("PUT", `/zones/${zone}`, { plan: "pro", origin: refused, account: { id: ACCOUNT } });
    expect(put.status, await put.text()).toBeLessThan(300);
  }
  const answer = await traffic(SHOP, "/checkout");
  expect(answer.status).toBe(521);
  ray = answer.ray ?? "";
  expect(ray).toMatch(/^[0-9a-f]{16}$/);
  await traffic(SHOP, "/cart");
  // The record is written after the response (docs/analytics.md): wait until the Ray lookup finds it.
  for (let i = 0; i < 100; i++) {
    if ((await api("GET", `/zones/${SHOP}/errors/${ray}`)).status === 200) break;
    await new Promise((done) => setTimeout(done, 200));
  }
}, 180_000);

afterAll(() => dev?.stop());

describe("/mcp: tokens and tools", () => {
  it("refuses a request without a valid token with 401 and WWW-Authenticate: Bearer, and no tool list", async () => {
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    for (const authorization of [undefined, "Bearer not-a-token"]) {
      const response = await fetch(`${dev.base}/mcp`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...(authorization ? { Authorization: authorization } : {}),
        },
        body: JSON.stringify(list),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer\b/);
      expect(await response.text()).not.toContain("list_zones");
    }
  });

  it("lists every tool to the admin token and fewer to a read-only token of one zone, which is refused another zone", async () => {
    const admin = await connect(ADMIN);
    const reader = await connect(READER);
    const all = (await admin.listTools()).tools;
    expect(all.map((t) => t.name)).toEqual([
      "list_zones",
      "explain_error",
      "top_errors",
      "error_rate",
      "preview_error",
      "lint_rules",
      "trace_request",
      "replay_draft",
    ]);
    for (const tool of all) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const some = (await reader.listTools()).tools.map((t) => t.name);
    expect(some).not.toContain("trace_request");
    expect(some).toContain("explain_error");
    expect(some.length).toBeLessThan(all.length);

    const zones = await call(reader, "list_zones", {});
    expect(zones.isError).toBeFalsy();
    expect((zones.structuredContent?.zones as { name: string }[]).map((z) => z.name)).toEqual([SHOP]);
    const adminZones = await call(admin, "list_zones", {});
    expect((adminZones.structuredContent?.zones as { name: string }[]).map((z) => z.name).sort()).toEqual([
      OTHER,
      SHOP,
    ]);

    const refused = await call(reader, "top_errors", { zone: OTHER });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/may not read zone other\.test/);
    const hidden = await call(reader, "trace_request", { account: ACCOUNT, url: `https://${SHOP}/` });
    expect(hidden.isError).toBe(true);
    expect(hidden.content[0]?.text).toMatch(/No tool named "trace_request" for this token/);
    await admin.close();
    await reader.close();
  });
});

describe("/mcp: tools answer what the API answers", () => {
  it("explain_error on a Ray of real traffic to a refused origin names 521 and request_reached_origin: false", async () => {
    const client = await connect(READER);
    const result = await call(client, "explain_error", { zone: SHOP, ray_id: ray });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    const s = result.structuredContent ?? {};
    expect(s.error_code).toBe(521);
    expect(s.request_reached_origin).toBe(false);
    expect(s.request).toEqual({ method: "GET", path: "/checkout" });
    expect((s.reference as { error_code: number }).error_code).toBe(521);
    expect(s.answered).toEqual({ phase: "default" });
    expect((s.phases as { phase: string; outcome: string }[]).find((p) => p.phase === "origin")?.outcome).toBe(
      "failed",
    );
    expect((s.what_to_do as string[]).join(" ")).toMatch(/origin/);
    expect(result.content[0]?.text).toContain("521");
    await client.close();
  });

  it("top_errors agrees with the analytics API", async () => {
    const client = await connect(ADMIN);
    const result = await call(client, "top_errors", { zone: SHOP });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    const rest = (await (await api("GET", `/zones/${SHOP}/analytics/errors?group_by=code`)).json()) as {
      result: { total: number; requests: number; series: { group: { code: number }; total: number }[] };
    };
    const s = result.structuredContent ?? {};
    expect(s.total).toBe(rest.result.total);
    expect(s.total).toBeGreaterThanOrEqual(2);
    expect(s.requests).toBe(rest.result.requests);
    expect((s.top as { group: unknown; count: number }[]).map((t) => [t.group, t.count])).toEqual(
      rest.result.series.map((x) => [x.group, x.total]),
    );
    const rate = await call(client, "error_rate", { zone: SHOP, since: "1h", by: "source" });
    expect(rate.isError, rate.content[0]?.text).toBeFalsy();
    expect(rate.structuredContent?.errors).toBe(rest.result.total);
    await client.close();
  });

  it("preview_error agrees with GET /zones/{zone}/preview/{code}", async () => {
    const client = await connect(READER);
    const result = await call(client, "preview_error", { zone: SHOP, code: 522, accept: "application/json" });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    const rest = await api("GET", `/zones/${SHOP}/preview/522`, undefined, { Accept: "application/json" });
    const restBody = (await rest.json()) as Record<string, unknown>;
    const s = result.structuredContent ?? {};
    expect(s.status).toBe(rest.status);
    expect((s.headers as Record<string, string>)["content-type"]).toBe(rest.headers.get("Content-Type"));
    // Each answer is one occurrence: its Ray ID (also its instance) and time are its own, the rest is the same.
    const without = (o: Record<string, unknown>) => ({ ...o, ray_id: null, instance: null, timestamp: null });
    expect(without(s.problem as Record<string, unknown>)).toEqual(without(restBody));
    await client.close();
  });

  it("a bad argument is an isError result naming it, not a JSON-RPC failure", async () => {
    const client = await connect(ADMIN);
    const missing = await call(client, "explain_error", { zone: SHOP });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toMatch(/ray_id is required/);
    const wrong = await call(client, "top_errors", { zone: SHOP, group_by: "colour" });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]?.text).toMatch(/group_by must be one of "code"/);
    const unknownRay = await call(client, "explain_error", { zone: SHOP, ray_id: "0000000000000000" });
    expect(unknownRay.isError).toBe(true);
    expect(unknownRay.content[0]?.text).toMatch(/explain_error failed: .*Fix the arguments/);
    await client.close();
  });

  it("lint_rules, replay_draft and trace_request answer what their endpoints answer", async () => {
    const client = await connect(ADMIN);
    const draft = {
      rules: [
        {
          expression: 'http.request.uri.path eq "/checkout"',
          action: "serve_error",
          action_parameters: { content: "<p>sorry</p>", content_type: "text/html" },
        },
      ],
    };
    const lint = await call(client, "lint_rules", { zone: SHOP, draft });
    expect(lint.isError, lint.content[0]?.text).toBeFalsy();
    const codes = (lint.structuredContent?.warnings as { code: number }[]).map((w) => w.code);
    expect(codes).toContain(20080);
    const replay = await call(client, "replay_draft", { zone: SHOP, draft, since: "1h" });
    expect(replay.isError, replay.content[0]?.text).toBeFalsy();
    expect(replay.structuredContent?.replayed).toBeGreaterThanOrEqual(2);
    expect(replay.structuredContent?.changed).toBeGreaterThanOrEqual(1);
    const trace = await call(client, "trace_request", { account: ACCOUNT, url: `https://${SHOP}/checkout` });
    expect(trace.isError, trace.content[0]?.text).toBeFalsy();
    expect((trace.structuredContent?.trace as { step_name: string }[]).map((t) => t.step_name)).toContain(
      "url_normalization",
    );
    await client.close();
  });

  it("serves the catalog as resources edge-errors://codes/{code}, in Markdown", async () => {
    const client = await connect(READER);
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain("edge-errors://codes/521");
    const read = await client.readResource({ uri: "edge-errors://codes/521" });
    const entry = read.contents[0] as { mimeType: string; text: string };
    expect(entry.mimeType).toBe("text/markdown");
    expect(entry.text).toMatch(/521/);
    await client.close();
  });
});
