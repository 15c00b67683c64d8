/**
 * The SDK dialect (docs/errors.md "SDK dialect"): a JSON error answered to a Stainless-generated SDK (`x-stainless-*`
 * request headers) or on an OpenAI-style API path also carries `error: {message, type, code}` after the 17 fields and
 * the other extension members, which keep their order and values; every other answer is unchanged. Then the real
 * SDKs, openai-node and anthropic-sdk-typescript, pointed at a failing zone through the Worker: the message they
 * throw holds our title.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FIELD_ORDER } from "../../../src/errors/fields";
import { fromStainlessSdk, isOpenAiStylePath } from "../../../src/errors/client-kind";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";

afterEach(() => vi.restoreAllMocks());

function quiet(): void {
  vi.spyOn(console, "log").mockImplementation(() => {});
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
}

async function downZone(extra: Record<string, unknown> = {}): Promise<string> {
  const zone = uniqueZone("dialect");
  await putZone(zone, { origin: loopback(ports.closed), connect_timeout: 0.3, read_timeout: 0.5, ...extra });
  return zone;
}

async function send(url: string, headers: Record<string, string>, method = "GET"): Promise<Response> {
  return exports.default.fetch(new Request(url, { method, headers }));
}

describe("which requests speak the dialect", () => {
  it.each([
    [{ "X-Stainless-Lang": "js" }, true],
    [{ "x-stainless-retry-count": "0" }, true],
    [{ "X-Stainless-Arch": "x64", "Zz-Last": "1", "Aa-First": "1" }, true],
    [{ "X-Stainless": "1" }, false],
    [{ "X-Stainlessness": "1" }, false],
    [{ "User-Agent": "OpenAI/JS 6.49.0" }, false],
    [{}, false],
  ])("%j → %s", (headers, expected) => {
    expect(fromStainlessSdk(new Headers(headers))).toBe(expected);
  });

  it.each([
    ["/v1/chat/completions", true],
    ["/v1/responses/resp_1", true],
    ["/openai/v1/embeddings", true],
    ["/v1/models", true],
    ["/v1/messages", false],
    ["/v1/chat", false],
    ["/v1/completionsx", false],
    ["/chat/completions", false],
    ["/", false],
  ])("path %s → %s", (path, expected) => {
    expect(isOpenAiStylePath(path)).toBe(expected);
  });
});

describe("the error member", () => {
  it("x-stainless-* and JSON: the 17 fields and the extension members first and unchanged, then `error`", async () => {
    quiet();
    const zone = await downZone();
    const plain = await send(`http://${zone}/things`, { Accept: "application/json" });
    const sdk = await send(`http://${zone}/things`, { Accept: "application/json", "X-Stainless-Lang": "js" });
    expect([plain.status, sdk.status]).toEqual([521, 521]);
    const before = await plain.json<Record<string, unknown>>();
    const after = await sdk.json<Record<string, unknown>>();
    expect(Object.keys(before)).toEqual(FIELD_ORDER.filter((k) => k in before));
    expect(Object.keys(after)).toEqual([...Object.keys(before), "error"]);
    expect(after.error).toEqual({
      message: `${String(after.title)}. ${String(after.detail)}`,
      type: "origin_down",
      code: "521",
    });
    expect(String((after.error as { message: string }).message)).toMatch(/^Error 521: Web server is down\. The /);
    // Only the per-occurrence values differ between the two bodies.
    for (const key of Object.keys(before)) {
      if (["instance", "ray_id", "timestamp"].includes(key)) continue;
      expect(after[key], key).toEqual(before[key]);
    }
  });

  it("an OpenAI-style path gets it without an SDK header; problem+json too; the same bytes otherwise", async () => {
    quiet();
    const zone = await downZone();
    for (const accept of ["application/json", "application/problem+json"]) {
      const res = await send(`http://${zone}/v1/chat/completions`, { Accept: accept }, "POST");
      const body = await res.json<{ error?: { type: string; code: string } }>();
      expect(res.headers.get("Content-Type")).toMatch(new RegExp(`^${accept.replace("+", "\\+")}`));
      expect(body.error).toMatchObject({ type: "origin_down", code: "521" });
    }
    const other = await (await send(`http://${zone}/v1/messages`, { Accept: "application/json" })).json<object>();
    expect("error" in other).toBe(false);
  });

  it("Markdown and HTML are unchanged for an SDK (the member is JSON's), HEAD has no body", async () => {
    quiet();
    const zone = await downZone();
    const sdk = { "X-Stainless-Lang": "js" };
    const markdown = await (await send(`http://${zone}/`, { ...sdk, Accept: "text/markdown" })).text();
    expect(markdown).not.toContain("Web server is down. The");
    const html = await (await send(`http://${zone}/`, { ...sdk, Accept: "text/html" })).text();
    const island = /<script type="application\/problem\+json" id="edge-error">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect("error" in (JSON.parse(island) as object)).toBe(false);
    const head = await send(`http://${zone}/`, { ...sdk, Accept: "application/json" }, "HEAD");
    expect([head.status, await head.text()]).toEqual([521, ""]);
  });

  it("the /cdn-cgi/error preview of a code speaks it too (every generated error goes through one pipeline)", async () => {
    quiet();
    const res = await send("http://localhost/cdn-cgi/error/1020", {
      Accept: "application/json",
      "X-Stainless-Lang": "python",
    });
    const body = await res.json<{ error: unknown; retryable: boolean }>();
    expect(body.error).toEqual({
      message: expect.stringMatching(/^Error 1020: Access denied\. /) as unknown,
      type: "firewall_rule_blocked",
      code: "1020",
    });
  });
});

/** Each request of an SDK handed to the Worker; the answers it read, in order. */
function workerFetch(seen: Response[]) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await exports.default.fetch(new Request(input, init));
    seen.push(response.clone());
    return response;
  };
}

describe("the real SDKs at a failing zone", () => {
  it("openai-node 6.49.0: the thrown message is our title and detail, not '521 status code (no body)'", async () => {
    quiet();
    const zone = await downZone();
    const seen: Response[] = [];
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: `http://${zone}/v1`,
      maxRetries: 0,
      fetch: workerFetch(seen),
    });
    const error: unknown = await client.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const thrown = error as InstanceType<typeof OpenAI.InternalServerError>;
    expect(thrown.status).toBe(521);
    expect(thrown.message).toMatch(/^521 Error 521: Web server is down\. The origin web server refused/);
    expect([thrown.type, thrown.code]).toEqual(["origin_down", "521"]);
    expect(seen[0]?.headers.get("x-should-retry")).toBe("true");
  });

  it("anthropic-sdk-typescript 1.14.0: the thrown message holds our title", async () => {
    quiet();
    const zone = await downZone();
    const seen: Response[] = [];
    const client = new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: `http://${zone}`,
      maxRetries: 0,
      fetch: workerFetch(seen),
    });
    const error: unknown = await client.messages
      .create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    const thrown = error as InstanceType<typeof Anthropic.InternalServerError>;
    expect(thrown.status).toBe(521);
    expect(thrown.message).toContain("Error 521: Web server is down");
  });
});
