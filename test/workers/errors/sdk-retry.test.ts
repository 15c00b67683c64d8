/**
 * What a failure costs the user of a Stainless-generated SDK (docs/errors.md "Retry verdicts", "Retry-hint
 * profiles"): openai-node 6.49.0, anthropic-sdk-typescript 1.14.0 and cloudflare 7.3.0, each with its default two
 * retries, pointed at a zone whose origin refuses connections (a real 521 through the Worker). Each SDK sleeps with
 * `setTimeout`: a sleep of 20 s or more (only a retry wait: the zone's timeouts are under 1 s, the SDKs' request
 * timeout 10 s) is recorded and ended at once, so the cost is computed from the waits the SDK itself chose, without
 * waiting minutes. Then `auto` per client: browsers get the published table, SDKs, MCP and the client package the
 * agent profile.
 */
import Anthropic from "@anthropic-ai/sdk";
import Cloudflare from "cloudflare";
import OpenAI from "openai";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_PACKAGE_ACCEPT } from "../../../src/errors/client-kind";
import { ACCEPT } from "../../../packages/client/src/accept";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { recordSleeps } from "../support/sdk-sleeps";

afterEach(() => vi.restoreAllMocks());

function quiet(): void {
  vi.spyOn(console, "log").mockImplementation(() => {});
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
}

async function downZone(retryHints?: "published" | "agent" | "auto"): Promise<string> {
  const zone = uniqueZone("sdk-cost");
  await putZone(zone, {
    origin: loopback(ports.closed),
    connect_timeout: 0.3,
    read_timeout: 0.5,
    ...(retryHints === undefined ? {} : { retry_hints: retryHints }),
  });
  return zone;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function workerFetch(seen: Response[]): Fetch {
  return async (input, init) => {
    const response = await exports.default.fetch(new Request(input, init));
    seen.push(response.clone());
    return response;
  };
}

/** One call of each SDK against `zone`, returning what it threw. */
const SDKS: readonly { name: string; call: (zone: string, fetch: Fetch) => Promise<unknown> }[] = [
  {
    name: "openai-node 6.49.0",
    call: (zone, fetch) =>
      new OpenAI({ apiKey: "sk-test", baseURL: `http://${zone}/v1`, timeout: 10_000, fetch }).chat.completions.create({
        model: "gpt-test",
        messages: [{ role: "user", content: "hi" }],
      }),
  },
  {
    name: "anthropic-sdk-typescript 1.14.0",
    call: (zone, fetch) =>
      new Anthropic({ apiKey: "sk-ant-test", baseURL: `http://${zone}`, timeout: 10_000, fetch }).messages.create({
        model: "claude-test",
        max_tokens: 16,
        messages: [{ role: "user", content: "hi" }],
      }),
  },
  {
    name: "cloudflare 7.3.0",
    call: (zone, fetch) =>
      new Cloudflare({ apiToken: "t", baseURL: `http://${zone}`, timeout: 10_000, fetch }).get("/client/v4/zones"),
  },
];

describe.each(SDKS)("$name at a refused origin (521), default retries", (sdk) => {
  it("published hints: it waits the 120 s twice, 240 s before its user sees the error", async () => {
    quiet();
    const zone = await downZone();
    const waits = recordSleeps();
    const seen: Response[] = [];
    const error = await sdk.call(zone, workerFetch(seen)).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 521 });
    expect(seen.map((r) => r.status)).toEqual([521, 521, 521]);
    expect(waits).toEqual([120_000, 120_000]);
  });

  it("auto: the agent hints, each wait exactly the answer's retry-after-ms, the whole failure under 2 minutes", async () => {
    quiet();
    const zone = await downZone("auto");
    const waits = recordSleeps();
    const seen: Response[] = [];
    const started = Date.now();
    const error = await sdk.call(zone, workerFetch(seen)).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 521 });
    expect(seen.map((r) => r.status)).toEqual([521, 521, 521]);
    const hinted = seen.slice(0, 2).map((r) => Number(r.headers.get("retry-after-ms")));
    expect(waits).toEqual(hinted);
    for (const ms of hinted) expect(ms).toBeGreaterThanOrEqual(30_000);
    for (const ms of hinted) expect(ms).toBeLessThan(60_000);
    // The cost to the user: the SDK's waits plus the time its three requests took here.
    const total = waits.reduce((a, b) => a + b, 0) + (Date.now() - started);
    expect(total).toBeLessThan(120_000);
  });
});

describe("retry_hints: auto, per client", () => {
  const hintFor = async (zone: string, init: RequestInit): Promise<number> => {
    const res = await exports.default.fetch(new Request(`http://${zone}/mcp`, init));
    expect(res.headers.get("retry-after-ms")).toBe(String(Number(res.headers.get("Retry-After")) * 1000));
    return Number(res.headers.get("Retry-After"));
  };

  it("a browser and an unknown client: the published 120 s; an SDK, MCP, the client package: 30–59 s", async () => {
    quiet();
    const zone = await downZone("auto");
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    expect(await hintFor(zone, { headers: { Accept: browser } })).toBe(120);
    expect(await hintFor(zone, { headers: { Accept: "application/json", "User-Agent": "curl/8" } })).toBe(120);
    const agents: RequestInit[] = [
      { headers: { Accept: "application/json", "X-Stainless-Lang": "python" } },
      { headers: { Accept: CLIENT_PACKAGE_ACCEPT } },
      {
        method: "POST",
        headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } }),
      },
      {
        method: "POST",
        headers: { "Mcp-Method": "tools/list", "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      },
    ];
    for (const init of agents) {
      const hint = await hintFor(zone, init);
      expect(hint, JSON.stringify(init.headers)).toBeGreaterThanOrEqual(30);
      expect(hint, JSON.stringify(init.headers)).toBeLessThanOrEqual(59);
    }
  });

  it("the MCP answer's problem says the same hint as its headers", async () => {
    quiet();
    const zone = await downZone("auto");
    const res = await exports.default.fetch(
      new Request(`http://${zone}/mcp`, {
        method: "POST",
        headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
      }),
    );
    const message = await res.json<{ error: { data: { retry_after: number } } }>();
    expect(message.error.data.retry_after).toBe(Number(res.headers.get("Retry-After")));
    expect(message.error.data.retry_after).toBeLessThanOrEqual(59);
  });

  it("the Worker knows the client package by its ACCEPT, exactly", () => {
    expect(CLIENT_PACKAGE_ACCEPT).toBe(ACCEPT);
  });
});
