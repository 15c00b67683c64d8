/**
 * The client's conformance kit (docs/client.md: "generated from the Worker, never written by hand"):
 * every catalog code × every format (JSON, problem+json, Markdown, HTML, HEAD with `Proxy-Status` only), as the real
 * Worker answers on 127.0.0.1 (Miniflare, bench/lib/serve.ts), each with the value `parse` must give.
 *
 * The expected value never comes from the client: it is the JSON body of the same code (fetched alongside) with the
 * occurrence's own ray (its `Ray-ID` header) and timestamp (read from that response by format-specific means
 * independent of the client: the YAML parser `yaml`, the page's "Time (UTC)" row), restricted to the fields that
 * format carries. `type` is made constant by ERROR_DOCS_BASE, so only ray and timestamp vary between runs;
 * test/node/conformance.test.ts regenerates in memory and compares with the committed files with those masked.
 *
 * `npm run conformance` writes packages/conformance/kit/{format}.json (the `@edge-errors/conformance` package).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parse as parseYaml } from "yaml";
import { serveWorker } from "../bench/lib/serve.ts";
import { CATALOG } from "../src/errors/catalog.ts";

export const CONFORMANCE_FORMATS = ["json", "problem-json", "markdown", "html", "head"] as const;
export type ConformanceFormat = (typeof CONFORMANCE_FORMATS)[number];

const ACCEPT: Readonly<Record<ConformanceFormat, string>> = {
  json: "application/json",
  "problem-json": "application/problem+json",
  markdown: "text/markdown",
  html: "text/html",
  head: "application/json",
};

/** The headers a client reads (the CSP and caching headers are the Worker's tests' business). */
const KEPT_HEADERS = [
  "content-type",
  "ray-id",
  "retry-after",
  "proxy-status",
  "x-should-retry",
  "retry-after-ms",
  "ratelimit-policy",
  "ratelimit",
] as const;

export interface ConformanceCase {
  readonly code: number;
  readonly request: { readonly method: "GET" | "HEAD"; readonly path: string; readonly accept: string };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  /** What `parse(response)` gives, field for field. */
  readonly expected: {
    readonly kind: "edge-error";
    readonly source: "json" | "markdown" | "html-island" | "proxy-status";
    readonly status: number;
    readonly code: number;
    readonly name: string;
    readonly category: string;
    readonly rayId: string;
    readonly retryable: boolean;
    readonly retryAfter: number | null;
    readonly retryAfterMs: number | null;
    readonly ownerActionRequired: boolean | null;
    readonly requestReachedOrigin: boolean | null;
    readonly fields: Readonly<Record<string, unknown>>;
    readonly rateLimit: null;
  };
}

export type ConformanceKit = Readonly<Record<ConformanceFormat, readonly ConformanceCase[]>>;

/** The Worker's settings for the kit: a constant `type` base, so fixtures differ between runs only by occurrence. */
export const CONFORMANCE_BINDINGS = {
  ADMIN_TOKEN: "conformance-token",
  ERROR_DOCS_BASE: "https://docs.edge-errors.example/errors",
};

export async function generateConformance(base: string): Promise<ConformanceKit> {
  const kit: Record<ConformanceFormat, ConformanceCase[]> = {
    json: [],
    "problem-json": [],
    markdown: [],
    html: [],
    head: [],
  };
  for (const entry of CATALOG) {
    const path = `/cdn-cgi/error/${entry.code}`;
    const json = (await (await fetch(base + path, { headers: { Accept: "application/json" } })).json()) as Record<
      string,
      unknown
    >;
    for (const format of CONFORMANCE_FORMATS) {
      kit[format].push(await fetchCase(base, path, entry.code, entry.errorName, format, json, {}));
    }
  }
  return kit;
}

/** One request of the kit and what `parse` must give for its response. */
async function fetchCase(
  base: string,
  path: string,
  code: number,
  name: string,
  format: ConformanceFormat,
  json: Record<string, unknown>,
  headersSent: Readonly<Record<string, string>>,
): Promise<ConformanceCase> {
  const method = format === "head" ? "HEAD" : "GET";
  const res = await fetch(base + path, { method, headers: { ...headersSent, Accept: ACCEPT[format] } });
  const body = await res.text();
  const headers: Record<string, string> = {};
  for (const header of KEPT_HEADERS) {
    const value = res.headers.get(header);
    if (value !== null) headers[header] = value;
  }
  const ray = res.headers.get("ray-id") ?? "";
  const fields = expectedFields(format, json, ray, body);
  const retryAfter = res.headers.get("retry-after");
  const retryAfterMs = res.headers.get("retry-after-ms");
  const reached = json.request_reached_origin;
  return {
    code,
    request: { method, path, accept: ACCEPT[format] },
    response: { status: res.status, headers, body },
    expected: {
      kind: "edge-error",
      source:
        format === "head"
          ? "proxy-status"
          : format === "html"
            ? "html-island"
            : format === "markdown"
              ? "markdown"
              : "json",
      status: res.status,
      code,
      name,
      category: json.error_category as string,
      rayId: ray,
      retryable: json.retryable as boolean,
      retryAfter: retryAfter === null ? null : Number(retryAfter),
      retryAfterMs:
        retryAfterMs !== null ? Number(retryAfterMs) : retryAfter === null ? null : Number(retryAfter) * 1000,
      // HEAD carries no owner action: the client reads it from the catalog it ships, for the code Proxy-Status names.
      ownerActionRequired: json.owner_action_required as boolean,
      // A body member; HEAD has none, and then Proxy-Status decides: a registered error type that never sends the
      // request gives `false` (docs/client.md "request_reached_origin and Idempotency-Key"), any other `null`.
      requestReachedOrigin:
        format === "head"
          ? neverSentType(res.headers.get("proxy-status"))
          : typeof reached !== "boolean"
            ? null
            : reached,
      fields,
      rateLimit: null,
    },
  };
}

/** RFC 9209 §2.3 error types after which the request was never sent to the next hop (no name, route, connection or
 * TLS session, or refused by the proxy itself). */
const NEVER_SENT =
  /;\s*error=(dns_timeout|dns_error|destination_not_found|destination_unavailable|destination_ip_prohibited|destination_ip_unroutable|connection_refused|connection_timeout|connection_limit_reached|tls_protocol_error|tls_certificate_error|tls_alert_received|http_request_error|http_request_denied|proxy_loop_detected|proxy_configuration_error)(?:;|$)/;

function neverSentType(proxyStatus: string | null): false | null {
  return proxyStatus !== null && NEVER_SENT.test(proxyStatus) ? false : null;
}

/**
 * Errors overlaid by a custom error rule (docs/custom-errors.md "Overlay"), in every format, from a zone
 * configured through the real API and answered by its preview endpoint (exactly what its traffic gets): the
 * overlay's texts in `detail` and `what_you_should_do` (with characters every format must escape or quote) and the
 * new member `links`, for clients that must read them. Written to `overlay.json`.
 */
export const OVERLAY_FILE = "overlay.json";
const OVERLAY_ZONE = "overlay.conformance.example";
const OVERLAY_CODES = [521, 1020] as const;
export const CONFORMANCE_OVERLAY = {
  detail: 'Our shop is being restocked: back soon.\n<b>Thank you</b> for your patience & "understanding".',
  what_you_should_do: "1. Wait a minute.\n2. Check **our status page**.",
  links: [
    { title: "Status page", href: "https://status.shop.example/" },
    { title: "Contact [support]", href: "https://shop.example/contact?from=error" },
  ],
  branding: { name: "Shop & Co", accent_color: "#0a7cff" },
};

export async function generateOverlayConformance(base: string): Promise<ConformanceCase[]> {
  const auth = { Authorization: `Bearer ${CONFORMANCE_BINDINGS.ADMIN_TOKEN}`, "Content-Type": "application/json" };
  const put = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(base + path, { method: "PUT", headers: auth, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
  };
  await put(`/zones/${OVERLAY_ZONE}`, { plan: "pro", origin: "http://origin.invalid" });
  await put(`/zones/${OVERLAY_ZONE}/rulesets/phases/http_custom_errors/entrypoint`, {
    rules: [{ expression: "true", action: "serve_error", action_parameters: { overlay: CONFORMANCE_OVERLAY } }],
  });
  const cases: ConformanceCase[] = [];
  for (const code of OVERLAY_CODES) {
    const path = `/zones/${OVERLAY_ZONE}/preview/${code}`;
    const res = await fetch(base + path, { headers: { ...auth, Accept: "application/json" } });
    const json = (await res.json()) as Record<string, unknown>;
    for (const format of CONFORMANCE_FORMATS) {
      cases.push(await fetchCase(base, path, code, json.error_name as string, format, json, auth));
    }
  }
  return cases;
}

/**
 * The answers that are not a plain error document (docs/agents.md, docs/producers.md), for clients that read them:
 * `rate-limit.json` (a rate-limiting rule's 1015 with its RateLimit fields, and an allowed response's fields),
 * `mcp.json` (a `tools/call` and a `tools/list` to an MCP server whose origin refuses connections: the JSON-RPC
 * answers) and `stream.json` (an event stream and an NDJSON stream whose origin resets after its first event: the
 * final error frame). Each case's `expected` is a subset of what the client's reader gives (`parse`,
 * `parseMcpError`, `parseStreamError`), derived from the problem object the answer itself carries.
 */
export const AGENT_FILES = ["rate-limit.json", "mcp.json", "stream.json"] as const;

export interface AgentCase {
  readonly name: string;
  readonly request: {
    readonly method: "GET" | "POST";
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  /** `parse` (rate-limit), `parseMcpError` (mcp) or `parseStreamError` (stream of the frame's data/line). */
  readonly reader: "parse" | "parseMcpError" | "parseStreamError";
  /** What the reader gives, at least these members; `null` when the answer is no edge error. */
  readonly expected: Readonly<Record<string, unknown>> | null;
}

const AGENT_ZONES = {
  limited: "rate-limit.conformance.example",
  mcp: "mcp.conformance.example",
  stream: "stream.conformance.example",
} as const;

/** A loopback origin that answers every request with the first event (or line) of a stream, then resets. */
async function breakingOrigin(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const ndjson = (req.url ?? "").startsWith("/ndjson");
    res.writeHead(200, { "Content-Type": ndjson ? "application/x-ndjson" : "text/event-stream" });
    res.write(ndjson ? '{"n":1}\n' : "event: message\ndata: one\n\n");
    setTimeout(() => res.socket?.resetAndDestroy(), 50);
  });
  await new Promise<void>((up) => server.listen(0, "127.0.0.2", up));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.2:${address.port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** The problem object's readings that every reader gives the same way. */
function readings(problem: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: "edge-error",
    code: problem.error_code,
    name: problem.error_name,
    category: problem.error_category,
    retryable: problem.retryable,
    retryAfter: problem.retryable === true ? problem.retry_after : null,
    requestReachedOrigin: problem.request_reached_origin,
  };
}

export async function generateAgentConformance(
  base: string,
): Promise<Readonly<Record<(typeof AGENT_FILES)[number], AgentCase[]>>> {
  const auth = { Authorization: `Bearer ${CONFORMANCE_BINDINGS.ADMIN_TOKEN}`, "Content-Type": "application/json" };
  const put = async (path: string, body: unknown): Promise<void> => {
    const res = await fetch(base + path, { method: "PUT", headers: auth, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
  };
  const origin = await breakingOrigin();
  try {
    await put(`/zones/${AGENT_ZONES.limited}`, { plan: "pro", origin: origin.url });
    await put(`/zones/${AGENT_ZONES.limited}/rulesets/phases/http_ratelimit/entrypoint`, {
      rules: [
        {
          expression: 'starts_with(http.request.uri.path, "/api/")',
          action: "block",
          ratelimit: { characteristics: ["ip.src"], period: 10, requests_per_period: 1, mitigation_timeout: 20 },
        },
      ],
    });
    // A closed loopback port: the connection is refused (521).
    await put(`/zones/${AGENT_ZONES.mcp}`, { plan: "pro", origin: "http://127.0.0.2:9", connect_timeout: 1 });
    await put(`/zones/${AGENT_ZONES.stream}`, { plan: "pro", origin: origin.url, read_timeout: 2 });
    const send = async (zone: string, request: AgentCase["request"]): Promise<AgentCase["response"]> => {
      // The Worker serves zone traffic by Host; Node's fetch drops a Host header, so node:http sends it.
      const { status, headers, body } = await hostRequest(base, zone, request);
      const kept: Record<string, string> = {};
      for (const header of KEPT_HEADERS) if (headers[header] !== undefined) kept[header] = headers[header];
      return { status, headers: kept, body };
    };
    const rateLimit: AgentCase[] = [];
    const limited = { method: "GET", path: "/api/orders", headers: { Accept: "application/json" } } as const;
    const allowed = await send(AGENT_ZONES.limited, limited);
    rateLimit.push({
      name: "allowed, quota used",
      request: limited,
      response: allowed,
      reader: "parse",
      expected: null,
    });
    const blocked = await send(AGENT_ZONES.limited, limited);
    const problem = JSON.parse(blocked.body) as Record<string, unknown>;
    rateLimit.push({
      name: "blocked: 1015 with RateLimit-Policy and RateLimit",
      request: limited,
      response: blocked,
      reader: "parse",
      expected: { ...readings(problem), source: "json", status: 429 },
    });
    const mcp: AgentCase[] = [];
    for (const [name, method, id] of [
      ["tools/call: a tool result with isError", "tools/call", 1],
      ["tools/list: a JSON-RPC error, the problem as data", "tools/list", 2],
    ] as const) {
      const request = {
        method: "POST",
        path: "/mcp",
        headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method,
          params: method === "tools/call" ? { name: "lookup_order", arguments: {} } : {},
        }),
      } as const;
      const response = await send(AGENT_ZONES.mcp, request);
      const message = JSON.parse(response.body) as {
        result?: { structuredContent: Record<string, unknown> };
        error?: { data: Record<string, unknown> };
      };
      const carried = message.result?.structuredContent ?? message.error?.data ?? {};
      const source = message.result !== undefined ? "mcp-tool-result" : "mcp-error";
      mcp.push({ name, request, response, reader: "parseMcpError", expected: { ...readings(carried), source } });
    }
    const stream: AgentCase[] = [];
    for (const [name, path, accept] of [
      [
        "event stream reset after its first event: the final `event: error` (with `retry:`)",
        "/sse",
        "text/event-stream",
      ],
      ["NDJSON reset after its first line: the final error line", "/ndjson", "application/x-ndjson"],
    ] as const) {
      const request = { method: "GET", path, headers: { Accept: accept } } as const;
      const response = await send(AGENT_ZONES.stream, request);
      const frame =
        path === "/sse"
          ? (/event: error\n(?:retry: \d+\n)?data: (.*)\n/.exec(response.body)?.[1] ?? "")
          : (response.body.trim().split("\n").at(-1) ?? "");
      const parsed = JSON.parse(frame) as { error?: Record<string, unknown> } & Record<string, unknown>;
      const carried = parsed.error ?? parsed;
      stream.push({ name, request, response, reader: "parseStreamError", expected: readings(carried) });
    }
    return { "rate-limit.json": rateLimit, "mcp.json": mcp, "stream.json": stream };
  } finally {
    await origin.close();
  }
}

/** One request to the Worker with a Host header (zone traffic), its whole answer. */
function hostRequest(
  base: string,
  host: string,
  r: AgentCase["request"],
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const url = new URL(base);
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: r.method, path: r.path, headers: { ...r.headers, Host: host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers[k] = v;
          done({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(r.body);
  });
}

/** A case of an agents file, masked: the ray, the timestamp, the retry value and the RateLimit reset vary per run. */
export function maskAgentCase(c: AgentCase): unknown {
  return JSON.parse(
    JSON.stringify(c)
      .replace(/[0-9a-f]{16}/g, "<ray>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, "<timestamp>")
      .replace(/server;dur=\d+|edge;dur=\d+|origin;dur=\d+/g, "<timing>")
      .replace(/t=\d+/g, "t=<t>"),
  );
}

/** The fields each format carries, from the JSON of the code with this occurrence's ray and timestamp. */
function expectedFields(
  format: ConformanceFormat,
  json: Record<string, unknown>,
  ray: string,
  body: string,
): Record<string, unknown> {
  switch (format) {
    case "json":
    case "problem-json":
      return JSON.parse(body) as Record<string, unknown>;
    case "markdown": {
      const front = parseYaml(body.split("\n---\n")[0]?.replace(/^---\n/, "") ?? "") as Record<string, unknown>;
      const { type: _type, ...rest } = json;
      return { ...rest, ray_id: ray, instance: ray, timestamp: front.timestamp };
    }
    case "html": {
      const time = /<dt>Time \(UTC\)<\/dt><dd class="mono">([^<]+)<\/dd>/.exec(body)?.[1];
      return { ...json, ray_id: ray, instance: ray, timestamp: time };
    }
    case "head":
      return { error_code: json.error_code, error_name: json.error_name };
  }
}

/** Ray and timestamp of a case, masked: what stays equal between two runs. */
export function maskOccurrence(c: ConformanceCase): unknown {
  const ray = c.expected.rayId;
  const time = c.expected.fields.timestamp;
  let text = JSON.stringify(c).replaceAll(ray, "<ray>");
  if (typeof time === "string") text = text.replaceAll(time, "<timestamp>");
  return JSON.parse(text);
}

export const CONFORMANCE_DIR = "packages/conformance/kit";

export function serialiseCases(cases: readonly ConformanceCase[]): string {
  return JSON.stringify(cases, null, 1) + "\n";
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dirname, "..");
  const served = await serveWorker({ root, entry: "src/index.ts", bindings: CONFORMANCE_BINDINGS });
  try {
    const kit = await generateConformance(served.url.href.replace(/\/$/, ""));
    await mkdir(resolve(root, CONFORMANCE_DIR), { recursive: true });
    for (const format of CONFORMANCE_FORMATS) {
      await writeFile(resolve(root, CONFORMANCE_DIR, `${format}.json`), serialiseCases(kit[format]));
      console.log(`${CONFORMANCE_DIR}/${format}.json: ${kit[format].length} cases`);
    }
    const overlay = await generateOverlayConformance(served.url.href.replace(/\/$/, ""));
    await writeFile(resolve(root, CONFORMANCE_DIR, OVERLAY_FILE), serialiseCases(overlay));
    console.log(`${CONFORMANCE_DIR}/${OVERLAY_FILE}: ${overlay.length} cases`);
    const agents = await generateAgentConformance(served.url.href.replace(/\/$/, ""));
    for (const file of AGENT_FILES) {
      await writeFile(resolve(root, CONFORMANCE_DIR, file), JSON.stringify(agents[file], null, 1) + "\n");
      console.log(`${CONFORMANCE_DIR}/${file}: ${agents[file].length} cases`);
    }
  } finally {
    await served.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
