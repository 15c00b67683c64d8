/**
 * One host everywhere (docs/architecture.md, docs/rules-language.md): every rule field that carries the host sees exactly the
 * host the zone lookup uses (`zoneOf`: lower-case, no trailing dot, no port), in every phase. Before the fix, the
 * zone lookup treated `dot.example.` and `Dot.Example.:8080` as the zone while `http.host` kept the dot and
 * `http.request.full_uri` the dot and the port, so a firewall rule on the host was bypassed by 10 of 18 spellings
 * and a rate-limiting rule keyed on `http.host` counted each spelling apart.
 *
 * Table-driven: host spellings × the fields that carry the host, one zone (one rule) per field, through the
 * Worker's own `fetch` with config written through the real API.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectGeneratedError, loopback, ports, putZone, sendTraffic, uniqueZone } from "../../support/origin";
import { apiFetch, apiOk, entrypoint } from "../../support/envelope";

afterEach(() => vi.restoreAllMocks());

/** Zone traffic from client address `ip`. */
const send = (url: string, ip = "192.0.2.1"): Promise<Response> => sendTraffic(url, { "CF-Connecting-IP": ip });

/** Every way a client may write the zone's host: case, trailing dot, default and other ports, combinations. */
function spellings(zone: string): string[] {
  const upper = zone.toUpperCase();
  const mixed = zone.replace(/^./, (c) => c.toUpperCase()).replace(/\.example$/, ".Example");
  const out: string[] = [];
  for (const host of [zone, upper, mixed, `${zone}.`, `${upper}.`, `${mixed}.`]) {
    for (const port of ["", ":80", ":443", ":8080"]) out.push(`http://${host}${port}`);
    for (const port of ["", ":443", ":8443"]) out.push(`https://${host}${port}`);
  }
  return out;
}

/** The IDN zone `bücher.example` in its DNS form, and its Unicode and punycode spellings. */
const IDN_ZONE_LABEL = "xn--bcher-kva";
function idnSpellings(zone: string): string[] {
  const unicode = zone.replace(IDN_ZONE_LABEL, "bücher");
  const out: string[] = [];
  for (const host of [zone, zone.toUpperCase(), unicode, unicode.toUpperCase(), `${unicode}.`, `${zone}.`]) {
    for (const port of ["", ":80", ":8080"]) out.push(`http://${host}${port}`);
    out.push(`https://${host}:443`);
  }
  return out;
}

/** A rule per field that carries the host; `Z` is replaced by the zone. */
const HOST_FIELD_RULES: readonly (readonly [string, string])[] = [
  ["http.host eq", 'http.host eq "Z" and starts_with(http.request.uri.path, "/admin")'],
  ["http.host in", 'http.host in {"Z"} and http.request.uri.path eq "/admin"'],
  ["http.host wildcard", 'http.host strict wildcard "Z" and http.request.uri.path eq "/admin"'],
  ["http.host matches", 'http.host matches "^Z$" and http.request.uri.path eq "/admin"'],
  ["http.request.full_uri", 'http.request.full_uri in {"http://Z/admin" "https://Z/admin"}'],
  ["raw.http.request.full_uri", 'raw.http.request.full_uri in {"http://Z/admin" "https://Z/admin"}'],
  [
    "full_uri starts_with",
    'starts_with(http.request.full_uri, "http://Z/admin") or starts_with(http.request.full_uri, "https://Z/admin")',
  ],
];

async function firewallZone(zone: string, expression: string): Promise<void> {
  await putZone(zone, { origin: loopback(ports.http) });
  await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
    rules: [{ expression: expression.replaceAll("Z", zone), action: "block" }],
  });
}

describe("a firewall rule on the host blocks every spelling of the host (1020)", () => {
  for (const [label, expression] of HOST_FIELD_RULES) {
    it(label, async () => {
      const zone = uniqueZone("hostspell");
      await firewallZone(zone, expression);
      for (const base of spellings(zone)) {
        const body = await expectGeneratedError(await send(`${base}/admin`), 1020).catch((e: unknown) => {
          throw new Error(`${base}/admin was not blocked: ${String(e)}`);
        });
        expect(body.zone).toBe(zone);
        // The rule is about /admin: the same spelling elsewhere reaches the origin.
        const other = await send(`${base}/ok`);
        expect(other.status, base).toBe(200);
        await other.body?.cancel();
      }
    });
  }

  it("an IDN zone: Unicode and punycode spellings, any case, dot and port, are one host", async () => {
    const zone = `${IDN_ZONE_LABEL}.${uniqueZone("idn")}`;
    await firewallZone(zone, 'http.host eq "Z" and http.request.full_uri in {"http://Z/admin" "https://Z/admin"}');
    for (const base of idnSpellings(zone)) {
      await expectGeneratedError(await send(`${base}/admin`), 1020).catch((e: unknown) => {
        throw new Error(`${base}/admin was not blocked: ${String(e)}`);
      });
    }
  });
});

describe("custom error rules see the same host (generated errors, origin errors, /cdn-cgi/error)", () => {
  const custom = (expression: string) => ({
    expression,
    action: "serve_error",
    action_parameters: { content: "custom for the zone", content_type: "text/plain" },
  });

  it("on a generated error, an origin's error and /cdn-cgi/error/{code}, every spelling", async () => {
    const zone = uniqueZone("hostcustom");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ expression: 'http.request.uri.path eq "/admin"', action: "block" }],
    });
    await apiOk("PUT", entrypoint(zone, "http_custom_errors"), {
      rules: [
        custom(
          `http.host eq "${zone}" and http.request.full_uri in ` +
            `{"http://${zone}/admin" "https://${zone}/admin" "http://${zone}/status/404" "https://${zone}/status/404" ` +
            `"http://${zone}/cdn-cgi/error/1020" "https://${zone}/cdn-cgi/error/1020"}`,
        ),
      ],
    });
    for (const base of spellings(zone)) {
      for (const path of ["/admin", "/status/404", "/cdn-cgi/error/1020"]) {
        const res = await send(`${base}${path}`);
        expect(await res.text(), `${base}${path}`).toBe("custom for the zone");
      }
    }
    // ~110 sequential requests: ~2.5 s on a quiet machine, past vitest's 5 s default when the machine is loaded.
  }, 30_000);
});

describe("the preview endpoint: rules see the zone it names, not the API host", () => {
  it("GET /zones/{zone}/preview/{code} answers the zone's custom rule on http.host", async () => {
    const zone = uniqueZone("hostpreview");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_custom_errors"), {
      rules: [
        {
          expression: `http.host eq "${zone}" and starts_with(http.request.full_uri, "http://${zone}/")`,
          action: "serve_error",
          action_parameters: { content: "previewed", content_type: "text/plain" },
        },
      ],
    });
    for (const name of [zone, `${zone.toUpperCase()}.`]) {
      const res = await apiFetch("GET", `/zones/${name}/preview/1020`);
      expect(await res.text(), name).toBe("previewed");
    }
  });
});

describe("a rate-limiting rule keyed on http.host: spellings share one counter", () => {
  it("the quota is not multiplied by the spellings of the host", async () => {
    const zone = uniqueZone("hostrate");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_ratelimit"), {
      rules: [
        {
          expression: "true",
          action: "block",
          ratelimit: { characteristics: ["http.host"], period: 60, requests_per_period: 3, mitigation_timeout: 60 },
        },
      ],
    });
    vi.spyOn(Date, "now").mockReturnValue(Date.now());
    const all = spellings(zone);
    // Three requests under three spellings use up the one quota...
    for (const base of all.slice(0, 3)) {
      const res = await send(`${base}/`);
      expect(res.status, base).toBe(200);
      await res.body?.cancel();
    }
    // ...so every other spelling (and every client address: the key is the host alone) is now limited.
    for (const [i, base] of all.slice(3).entries()) {
      await expectGeneratedError(await send(`${base}/`, `192.0.2.${10 + i}`), 1015).catch((e: unknown) => {
        throw new Error(`${base}/ was not limited: ${String(e)}`);
      });
    }
  });
});
