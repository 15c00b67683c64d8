/**
 * `request_reached_origin` and `Server-Timing` decided from what actually happened (docs/errors.md "Did the request
 * reach the origin?", "Server-Timing"): every origin failure the servers of test/servers/ produce on 127.0.0.1 (and
 * the ones injected through ORIGIN_FAULTS), and the edge's own refusals (firewall, IP access, rate limit, header
 * limit, unknown host), through the real Worker, in every format.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  JSON_ACCEPT,
  TIMES_OUT,
  expectGeneratedError,
  loopback,
  ports,
  putZone,
  uniqueZone,
  zoneFor,
} from "../../support/origin";
import { api, entrypoint } from "../../support/envelope";

interface Case {
  readonly name: string;
  readonly origin: () => string;
  readonly path: string;
  readonly code: number;
  readonly reached: boolean | null;
  readonly reason: string;
}

const cases: Case[] = [
  {
    name: "refused",
    origin: () => loopback(ports.closed),
    path: "/",
    code: 521,
    reached: false,
    reason: "connect-refused",
  },
  {
    name: "hangs after the request",
    origin: () => loopback(ports.raw),
    path: "/hang",
    code: 524,
    reached: true,
    reason: "response-timeout",
  },
  {
    name: "resets after the request",
    origin: () => loopback(ports.raw),
    path: "/reset",
    code: 520,
    reached: true,
    reason: "connection-reset",
  },
  {
    name: "closes without a byte",
    origin: () => loopback(ports.raw),
    path: "/close",
    code: 520,
    reached: true,
    reason: "connection-reset",
  },
  {
    name: "garbage bytes",
    origin: () => loopback(ports.raw),
    path: "/garbage",
    code: 502,
    reached: true,
    reason: "malformed-response",
  },
  {
    name: "unparsable status line",
    origin: () => loopback(ports.raw),
    path: "/bad-status",
    code: 502,
    reached: true,
    reason: "malformed-response",
  },
  {
    name: "self-signed certificate",
    origin: () => loopback(ports.tls, "https"),
    path: "/",
    code: 526,
    reached: false,
    reason: "tls-certificate",
  },
  {
    name: "plain HTTP on the TLS port",
    origin: () => loopback(ports.http, "https"),
    path: "/echo",
    code: 525,
    reached: false,
    reason: "tls-handshake",
  },
  {
    name: "slow headers past the read timeout",
    origin: () => loopback(ports.http),
    path: "/slow-headers?ms=1500",
    code: 524,
    reached: true,
    reason: "response-timeout",
  },
  // Injected (ORIGIN_FAULTS in vitest.config.ts): no packet or DNS query leaves loopback.
  {
    name: "DNS (injected)",
    origin: () => "http://nxdomain.test",
    path: "/",
    code: 1016,
    reached: false,
    reason: "dns-unresolvable",
  },
  {
    name: "no route (injected)",
    origin: () => "https://unroutable.test:8443",
    path: "/",
    code: 523,
    reached: false,
    reason: "network-unreachable",
  },
  {
    name: "connect timeout (injected)",
    origin: () => "http://blackhole.test",
    path: "/",
    code: 522,
    reached: false,
    reason: "connect-timeout",
  },
];

/** `Server-Timing` as its members (W3C Server Timing §3): name → params; asserts there is nothing else in it. */
function serverTiming(value: string | null): Map<string, Record<string, string>> {
  expect(value).not.toBeNull();
  const members = new Map<string, Record<string, string>>();
  for (const member of value!.split(/\s*,\s*/)) {
    const [name, ...params] = member.split(";");
    const record: Record<string, string> = {};
    for (const param of params) {
      const [key, raw] = param.split("=");
      record[key!] = raw!.replace(/^"(.*)"$/, "$1");
    }
    members.set(name!, record);
  }
  return members;
}

describe("request_reached_origin and Server-Timing on origin failures", () => {
  it.each(cases)("$name → $code, reached $reached, $reason", async ({ origin, path, code, reached, reason }) => {
    // The rows that wait for a timeout (522, 524) get short ones; the others are answered as soon as the runtime
    // reports the failure.
    const zone = await zoneFor("reach", origin(), code === 522 || code === 524 ? TIMES_OUT : {});
    const url = `http://${zone}${path}`;
    const started = Date.now();
    const res = await exports.default.fetch(url, { headers: JSON_ACCEPT });
    const waited = Date.now() - started;
    const body = (await expectGeneratedError(res, code)) as unknown as Record<string, unknown>;
    expect(body.request_reached_origin).toBe(reached);
    expect(Object.keys(body).at(-1)).toBe("request_reached_origin");

    const timing = serverTiming(res.headers.get("Server-Timing"));
    expect([...timing.keys()]).toEqual(["edge", "origin"]);
    const edge = Number(timing.get("edge")!.dur);
    const spent = Number(timing.get("origin")!.dur);
    expect(Number.isInteger(edge) && edge >= 0).toBe(true);
    expect(Number.isInteger(spent) && spent >= 0).toBe(true);
    expect(edge + spent).toBeLessThanOrEqual(waited + 5);
    expect(timing.get("origin")!.desc).toBe(reason);
    // Never an address: no port, no loopback address, no host.
    const header = res.headers.get("Server-Timing")!;
    for (const leak of ["127.0.0.1", String(ports.raw), String(ports.closed), String(ports.tls), "test"]) {
      expect(header).not.toContain(leak);
    }
    if (code === 524) expect(spent).toBeGreaterThanOrEqual(700); // the read timeout is 0.8 s (TIMES_OUT)

    // The same value in the other formats: the Markdown frontmatter and the HTML page's island.
    const markdown = await (await exports.default.fetch(url, { headers: { Accept: "text/markdown" } })).text();
    const frontmatter = parse(/^---\n([\s\S]*?)\n---\n/.exec(markdown)![1]!) as Record<string, unknown>;
    expect(frontmatter.request_reached_origin).toBe(reached);
    expect(Object.keys(frontmatter).at(-1)).toBe("request_reached_origin");
    const html = await (await exports.default.fetch(url, { headers: { Accept: "text/html" } })).text();
    const island = /<script type="application\/problem\+json" id="edge-error">([^<]*)<\/script>/.exec(html)![1]!;
    expect((JSON.parse(island) as Record<string, unknown>).request_reached_origin).toBe(reached);
  });
});

const block = (expression: string, extra: Record<string, unknown> = {}) => ({ expression, action: "block", ...extra });

describe("request_reached_origin on the edge's own refusals: false, and no origin in Server-Timing", () => {
  /** A zone in front of the healthy origin with the rules given. */
  async function zoneWith(section: "firewall" | "ratelimit" | "access", rules: unknown[]): Promise<string> {
    const zone = uniqueZone("reach-edge");
    await putZone(zone, { origin: loopback(ports.http), max_request_header_bytes: 2048 });
    const path =
      section === "access"
        ? `/zones/${zone}/access_rules`
        : entrypoint(zone, section === "firewall" ? "http_request_firewall_custom" : "http_ratelimit");
    const put = await api("PUT", path, { rules });
    expect(put.status, put.text).toBe(200);
    return zone;
  }

  async function expectEdgeRefusal(res: Response, code: number): Promise<void> {
    const body = (await expectGeneratedError(res, code)) as unknown as Record<string, unknown>;
    expect(body.request_reached_origin).toBe(false);
    expect(res.headers.get("Server-Timing")).toMatch(/^edge;dur=\d+$/);
  }

  it("firewall block → 1020", async () => {
    const zone = await zoneWith("firewall", [block('http.request.uri.path eq "/admin"')]);
    await expectEdgeRefusal(await exports.default.fetch(`http://${zone}/admin`, { headers: JSON_ACCEPT }), 1020);
  });

  it("IP access block → 1006", async () => {
    const zone = await zoneWith("access", [{ mode: "block", configuration: { target: "ip", value: "192.0.2.7" } }]);
    const headers = { ...JSON_ACCEPT, "CF-Connecting-IP": "192.0.2.7" };
    await expectEdgeRefusal(await exports.default.fetch(`http://${zone}/`, { headers }), 1006);
  });

  it("rate limit → 1015", async () => {
    const ratelimit = { characteristics: ["ip.src"], period: 60, requests_per_period: 1, mitigation_timeout: 60 };
    const zone = await zoneWith("ratelimit", [block("true", { ratelimit })]);
    const headers = { ...JSON_ACCEPT, "CF-Connecting-IP": "192.0.2.8" };
    expect((await exports.default.fetch(`http://${zone}/echo`, { headers })).status).toBe(200);
    await expectEdgeRefusal(await exports.default.fetch(`http://${zone}/echo`, { headers }), 1015);
  });

  it("request headers over the zone's limit → 1038", async () => {
    const zone = await zoneWith("firewall", []);
    const headers = { ...JSON_ACCEPT, "X-Big": "x".repeat(4096) };
    await expectEdgeRefusal(await exports.default.fetch(`http://${zone}/`, { headers }), 1038);
  });

  it("a host without zone config → 1001", async () => {
    const res = await exports.default.fetch(`http://${uniqueZone("nozone")}/`, { headers: JSON_ACCEPT });
    await expectEdgeRefusal(res, 1001);
  });
});
