/**
 * Configuration validated loudly and once (src/shared/settings.ts): every invalid var is one problem
 * naming the var, the value's problem and what is used instead; through the Worker it is one `config_invalid` log
 * line per isolate, and the answer uses the fallback (never the garbage).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { checkSettings, configInvalidLine, parseSettings } from "../../../src/shared/settings";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("checkSettings (the parser check-config shares)", () => {
  it("the defaults (wrangler.toml's values) have no problem", () => {
    const vars = {
      API_HOSTS: "localhost,127.0.0.1",
      OPERATOR_NAME: "the edge",
      ERROR_DOCS_BASE: "",
      SERVICE_PREFIX: "/cdn-cgi",
      DEFAULT_ORIGIN: "",
      TAG_LIMIT: "10000",
    };
    expect(checkSettings(vars).problems).toEqual([]);
    expect(checkSettings({}).problems).toEqual([]);
  });

  it.each([
    ["TAG_LIMIT", "lots", "must be a whole number from 1 to 999999999", "10000"],
    ["TAG_LIMIT", "10abc", "must be a whole number from 1 to 999999999", "10000"],
    ["ERROR_LOG_COALESCE_MS", "-5", "must be whole milliseconds from 0 to 1000", "50"],
    ["ERROR_LOG_COALESCE_MS", "5000", "must be whole milliseconds from 0 to 1000", "50"],
    ["RATE_LIMIT_TIMEOUT_MS", "0", "must be whole milliseconds from 1 to 10000", "1000"],
    ["RATE_LIMIT_TIMEOUT_MS", "20000", "must be whole milliseconds from 1 to 10000", "1000"],
    ["RATE_LIMIT_TIMEOUT_MS", "1e3", "must be whole milliseconds from 1 to 10000", "1000"],
    ["SERVICE_PREFIX", "cdn-cgi", "must start with /", "/cdn-cgi"],
    ["SERVICE_PREFIX", "/", "must be /segment[/segment…] of letters, digits, -, _, ., ~", "/cdn-cgi"],
    ["SERVICE_PREFIX", "/my edge", "must be /segment[/segment…] of letters, digits, -, _, ., ~", "/cdn-cgi"],
    [
      "ERROR_DOCS_BASE",
      "ht tp://bad base",
      "must be a URI reference (RFC 3986): an absolute URI or a path, without spaces",
      "/cdn-cgi/errors on the requested zone",
    ],
    ["ERROR_DOCS_BASE", "https://docs.example/%zz", "must be a URI reference", "/cdn-cgi/errors"],
    ["API_HOSTS", "api.example,https://x.example/", 'not a hostname: "https://x.example/"', "api.example"],
    ["OPERATOR_NAME", "two\nlines", "must be one line of at most 200 characters", "the edge"],
    ["DEFAULT_ORIGIN", "http://o.example/path", "must not contain a path", "none: hosts without zone config"],
    ["DEFAULT_ORIGIN", "http://localhost:8788", "must not be a host of API_HOSTS", "none: hosts without zone"],
  ] as const)("%s = %j: %s; uses %s", (name, value, problem, used) => {
    const { problems } = checkSettings({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ kind: "invalid-var", var: name, value });
    expect(problems[0]?.problem).toContain(problem);
    expect(problems[0]?.used).toContain(used);
  });

  it.each([
    ["SERVICE_PREFIX", "/_edge/"],
    ["ERROR_DOCS_BASE", "https://docs.example/errors/"],
    ["ERROR_DOCS_BASE", "/help/errors"],
    ["ERROR_DOCS_BASE", "help/errors"],
    ["ERROR_DOCS_BASE", "//docs.example/e"],
    ["ERROR_DOCS_BASE", "urn:example:errors"],
    ["API_HOSTS", " LocalHost:8787 , api.example. ,[::1]:8787,,127.0.0.1"],
    ["TAG_LIMIT", " 12 "],
    ["RATE_LIMIT_TIMEOUT_MS", "10000"],
    ["DEFAULT_ORIGIN", "http://origin.example:8788"],
  ])("%s = %j is valid (no problem)", (name, value) => {
    expect(checkSettings({ [name]: value }).problems).toEqual([]);
  });

  it("the fallbacks are what the Worker uses", () => {
    const s = parseSettings({
      TAG_LIMIT: "lots",
      ERROR_LOG_COALESCE_MS: "-5",
      RATE_LIMIT_TIMEOUT_MS: "0",
      SERVICE_PREFIX: "cdn-cgi",
      ERROR_DOCS_BASE: "ht tp://bad base",
    });
    expect(s).toMatchObject({
      tagLimit: 10_000,
      errorLogCoalesceMs: 50,
      rateLimitTimeoutMs: 1000,
      servicePrefix: "/cdn-cgi",
      errorDocsBase: null,
    });
  });
});

/** One request through the real Worker with the vars overridden, the console captured. */
async function fetchWith(vars: Record<string, string>, url: string): Promise<{ res: Response; lines: string[] }> {
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(url, { headers: { Accept: "application/json" } }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const lines = error.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('"config_invalid"'));
  error.mockRestore();
  return { res, lines };
}

describe("through the Worker: one log line per isolate, and the fallback in the answer", () => {
  it.each([
    ["TAG_LIMIT", "lots-w", "10000"],
    ["ERROR_LOG_COALESCE_MS", "-5", "50"],
    ["SERVICE_PREFIX", "cdn-cgi", "/cdn-cgi"],
    ["ERROR_DOCS_BASE", "ht tp://bad base", "/cdn-cgi/errors on the requested zone"],
  ])("%s = %j is logged once, naming the value used (%s)", async (name, value, used) => {
    const first = await fetchWith({ [name]: value }, "http://localhost:8790/cdn-cgi/error/522");
    expect(first.lines).toHaveLength(1);
    expect(JSON.parse(first.lines[0] ?? "")).toMatchObject({ event: "config_invalid", var: name, value, used });
    // The type is never built from the garbage: the default reference of the code.
    expect(first.res.status).toBe(522);
    expect((await first.res.json<{ type: string }>()).type).toBe("http://localhost:8790/cdn-cgi/errors/522");
    // A second env object with the same value (another request): not logged again in this isolate.
    const again = await fetchWith({ [name]: value }, "http://localhost:8790/cdn-cgi/error/522");
    expect(again.lines).toEqual([]);
  });

  it("the line is exactly {event, var, value, problem, used}", () => {
    const line = configInvalidLine({ kind: "invalid-var", var: "TAG_LIMIT", value: "x", problem: "p", used: "u" });
    expect(Object.keys(JSON.parse(line) as object)).toEqual(["event", "var", "value", "problem", "used"]);
  });

  it("DEFAULT_ORIGIN invalid: no safe fallback, a structured 500 that names no secret, and the line", async () => {
    const { res, lines } = await fetchWith({ DEFAULT_ORIGIN: "ftp://o.example" }, "http://nozone.example/");
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error_code: 500 });
    expect(lines.map((l) => JSON.parse(l) as { var: string })).toEqual([
      expect.objectContaining({
        var: "DEFAULT_ORIGIN",
        used: "none: hosts without zone config answer a structured 500",
      }),
    ]);
  });
});

describe("DEV_INSTANCE (npm run dev proves its server, scripts/dev.mjs)", () => {
  it("GET /openapi.json echoes it as X-Dev-Instance; unset (any deployment) → no such header", async () => {
    const call = async (vars: Record<string, string>) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request("http://localhost/openapi.json"), { ...env, ...vars }, ctx);
      await waitOnExecutionContext(ctx);
      await res.arrayBuffer();
      return res;
    };
    expect((await call({ DEV_INSTANCE: "0f1e2d3c" })).headers.get("X-Dev-Instance")).toBe("0f1e2d3c");
    const plain = await call({});
    expect(plain.status).toBe(200);
    expect(plain.headers.has("X-Dev-Instance")).toBe(false);
  });
});
