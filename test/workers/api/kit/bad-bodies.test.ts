/**
 * Bad request bodies, endpoint by endpoint, through the real Worker: each row is one body an endpoint refuses, with
 * the envelope code and every error message it answers, the field path first (docs/configuration.md "API error
 * codes"). The table was written against the hand-written validators and kept passing when each endpoint's body
 * became one schema (src/shared/schema.ts): the paths and the wording a client reads did not move.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

const ORIGIN = "http://127.0.0.1:9";
const ZONE = uniqueZone("bad-bodies");
/** The account whose tag policy the policy rows try to set (a refused policy stores nothing). */
const POLICY_ACCOUNT = "ba0b0d1e5ba0b0d1e5ba0b0d1e5ba0b0";
/** Rule ids of the firewall ruleset made before the table runs (the rule-level rows edit it; none is stored). */
const RULE_A = "a".repeat(32);
const RULE_B = "b".repeat(32);

interface Row {
  /** What the body gets wrong. */
  readonly what: string;
  readonly method: "PUT" | "PATCH" | "POST" | "DELETE";
  /** The path, `{zone}` standing for a zone configured before the table runs. */
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
  readonly code: number;
  /** Every message of `errors`, in order. */
  readonly messages: readonly string[];
  /** A GET path (`{zone}` as in `path`) whose ETag the refusal must leave as it was: the refusal changed nothing. */
  readonly keeps?: string;
}

const SETTING = "Invalid zone setting: ";
const URLN = "Invalid url_normalization: ";
const TELE = "Invalid telemetry: ";
const ASSET = "Invalid custom asset: ";
const OTLP_OK = { endpoint: "https://otlp.example.net/v1/traces", protocol: "http/json" };

const ROWS: readonly Row[] = [
  // PUT /zones/{zone} (docs/configuration.md "Zones"): 1004, "Invalid zone setting: <path> <rule>".
  {
    what: "a body that is no object",
    method: "PUT",
    path: "/zones/{zone}",
    body: [1],
    status: 400,
    code: 1004,
    messages: [`${SETTING}body must be a JSON object`],
  },
  {
    what: "every field wrong at once",
    method: "PUT",
    path: "/zones/{zone}",
    body: {
      extra: 1,
      plan: "gold",
      origin: 7,
      account: { id: "x", name: "n" },
      connect_timeout: 0,
      read_timeout: "1",
      max_request_header_bytes: 1.5,
      retry_hints: null,
    },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}extra is not a zone setting`,
      `${SETTING}plan must be one of free, pro, business, enterprise`,
      `${SETTING}origin must be a URL string`,
      `${SETTING}account.name is not a field of account (only id)`,
      `${SETTING}account.id must be 32 lower-case hex characters`,
      `${SETTING}connect_timeout must be a number from 0.05 to 60`,
      `${SETTING}read_timeout must be a number from 0.05 to 6000`,
      `${SETTING}max_request_header_bytes must be an integer from 1024 to 131072`,
      `${SETTING}retry_hints must be one of published, agent, auto`,
    ],
  },
  {
    what: "a missing plan and origin",
    method: "PUT",
    path: "/zones/{zone}",
    body: {},
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}plan must be one of free, pro, business, enterprise`,
      `${SETTING}origin must be a URL string`,
    ],
  },
  {
    what: "an origin that is no http(s) origin",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: "ftp://example.com" },
    status: 400,
    code: 1004,
    messages: [`${SETTING}origin scheme must be http or https`],
  },
  {
    what: "an account that is no object",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, account: "acme" },
    status: 400,
    code: 1004,
    messages: [`${SETTING}account must be an object {"id": "<32 lower-case hex characters>"} or null`],
  },
  {
    what: "a fallback origin that is no http(s) origin, a circuit breaker out of bounds",
    method: "PUT",
    path: "/zones/{zone}",
    body: {
      plan: "pro",
      origin: ORIGIN,
      fallback_origin: "ftp://example.com",
      circuit_breaker: { failures: 0, open_seconds: 1.5, half_open: 1 },
    },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}fallback_origin scheme must be http or https`,
      `${SETTING}circuit_breaker.half_open is not a field of circuit_breaker`,
      `${SETTING}circuit_breaker.failures must be an integer from 1 to 1000`,
      `${SETTING}circuit_breaker.open_seconds must be an integer from 1 to 3600`,
    ],
  },
  {
    what: "a circuit breaker that is no object, a fallback origin that is no string",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, fallback_origin: 7, circuit_breaker: true },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}fallback_origin must be a URL string`,
      `${SETTING}circuit_breaker must be an object {failures, open_seconds}`,
    ],
  },
  {
    what: "a maintenance mode with every field wrong",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, maintenance: { enabled: "yes", retry_after: 0, allow: "ip.src in {", on: 1 } },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}maintenance.on is not a field of maintenance`,
      `${SETTING}maintenance.enabled must be true or false`,
      `${SETTING}maintenance.retry_after must be an integer from 1 to 86400`,
      `${SETTING}maintenance.allow expected \`}\`: the set is not closed`,
    ],
  },
  {
    what: "a maintenance mode that is no object",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, maintenance: true },
    status: 400,
    code: 1004,
    messages: [`${SETTING}maintenance must be an object {enabled, retry_after, allow}`],
  },
  // PATCH /zones/{zone} (docs/configuration.md "Editing a zone"): the same fields, each nullable.
  {
    what: "a patch with a bad plan and an unknown field",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { plan: "gold", paused: true },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}paused is not a zone setting`,
      `${SETTING}plan must be one of free, pro, business, enterprise`,
    ],
  },
  {
    what: "a patch that resets the required origin",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { origin: null },
    status: 400,
    code: 1004,
    messages: [`${SETTING}origin must be a URL string`],
  },
  {
    what: "a patch out of bounds",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { read_timeout: 6001, max_request_header_bytes: 512 },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}read_timeout must be a number from 0.05 to 6000`,
      `${SETTING}max_request_header_bytes must be an integer from 1024 to 131072`,
    ],
  },
  // docs/fewer-errors.md: the stale copies' two fields.
  {
    what: "stale settings out of bounds",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, stale_if_error: 604_801, stale_after_ms: -1 },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}stale_if_error must be an integer from 0 to 604800`,
      `${SETTING}stale_after_ms must be an integer from 0 to 100000`,
    ],
  },
  {
    what: "stale settings of the wrong type",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { stale_if_error: "60", stale_after_ms: 1.5 },
    status: 400,
    code: 1004,
    messages: [
      `${SETTING}stale_if_error must be an integer from 0 to 604800`,
      `${SETTING}stale_after_ms must be an integer from 0 to 100000`,
    ],
  },
  // docs/languages.md "A zone's languages".
  {
    what: "languages: an empty list",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, languages: [] },
    status: 400,
    code: 1004,
    messages: [`${SETTING}languages must be a list of 1 to 7 languages, each once`],
  },
  {
    what: "languages: a tag written in another case",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { languages: ["de", "pt-br"] },
    status: 400,
    code: 1004,
    messages: [`${SETTING}languages[1] must be one of en, de, es, fr, ja, pt-BR, zh-CN`],
  },
  {
    what: "languages: a repeated tag",
    method: "PUT",
    path: "/zones/{zone}",
    body: { plan: "pro", origin: ORIGIN, languages: ["de", "de"] },
    status: 400,
    code: 1004,
    messages: [`${SETTING}languages must be a list of 1 to 7 languages, each once`],
  },
  {
    what: "languages: a string instead of a list",
    method: "PATCH",
    path: "/zones/{zone}",
    body: { languages: "de" },
    status: 400,
    code: 1004,
    messages: [`${SETTING}languages must be a list of 1 to 7 languages, each once`],
  },
  // PUT /zones/{zone}/url_normalization (docs/configuration.md): 20027, the two fields first, at most 5 listed.
  {
    what: "a body that is no object",
    method: "PUT",
    path: "/zones/{zone}/url_normalization",
    body: "[]",
    status: 400,
    code: 20027,
    messages: [`${URLN}body must be a JSON object {scope, type}`],
  },
  {
    what: "both fields wrong and a stray key",
    method: "PUT",
    path: "/zones/{zone}/url_normalization",
    body: { scope: "all", type: 3, extra: true },
    status: 400,
    code: 20027,
    messages: [
      `${URLN}scope must be one of incoming, both, none`,
      `${URLN}type must be one of cloudflare, rfc3986`,
      `${URLN}extra is not a url_normalization setting (scope, type)`,
    ],
  },
  {
    what: "seven stray keys: five listed, the rest counted",
    method: "PUT",
    path: "/zones/{zone}/url_normalization",
    body: { scope: "both", type: "rfc3986", a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 },
    status: 400,
    code: 20027,
    messages: [
      ...["a", "b", "c", "d", "e"].map((key) => `${URLN}${key} is not a url_normalization setting (scope, type)`),
      `${URLN}and 2 more errors not listed`,
    ],
  },
  // PUT /zones/{zone}/access_rules (docs/configuration.md "IP access rules"): 20026, "<path> <rule>", rule indexes as sent.
  {
    what: "a body that is no object",
    method: "PUT",
    path: "/zones/{zone}/access_rules",
    body: 5,
    status: 400,
    code: 20026,
    messages: ["body must be a JSON object {rules: [...]}"],
  },
  {
    what: "rules that are no array",
    method: "PUT",
    path: "/zones/{zone}/access_rules",
    body: { rules: {} },
    status: 400,
    code: 20026,
    messages: ["rules must be an array"],
  },
  {
    what: "every field of a rule wrong, and wrong values in the next rules",
    method: "PUT",
    path: "/zones/{zone}/access_rules",
    body: {
      rules: [
        { scope: "zone", id: "abc", mode: "challenge", notes: 5, configuration: { target: "asn", value: "AS1", x: 1 } },
        "1.2.3.4",
        { mode: "block" },
        { mode: "block", configuration: { target: "ip", value: "10.0.0.0/8" } },
        { mode: "block", configuration: { target: "ip_range", value: "10.0.0.0" } },
        { mode: "block", configuration: { target: "ip_range", value: "0.0.0.0/0" } },
        { mode: "block", configuration: { target: "ip_range", value: "2000::/8" } },
        { mode: "block", configuration: { target: "ip_range", value: "10.0.0/24" } },
        { mode: "block", configuration: { target: "country", value: "DEU" } },
        { mode: "block", notes: "x".repeat(1025), configuration: { target: "country", value: "DE" } },
      ],
    },
    status: 400,
    code: 20026,
    messages: [
      "rules[0].scope is not a field of an access rule",
      "rules[0].id must be 32 lower-case hex characters (or be left out)",
      "rules[0].mode must be one of: block",
      "rules[0].notes must be a string of at most 1024 characters",
      "rules[0].configuration.x is not a field of an access rule",
      "rules[0].configuration.target must be one of: ip, ip_range, country",
      "rules[1] must be an object",
      "rules[2].configuration must be an object {target, value}",
      "rules[3].configuration.value must be one IPv4 or IPv6 address (a range needs target ip_range)",
      "rules[4].configuration.value must be a CIDR range address/prefix",
      "rules[5].configuration.value must have an IPv4 prefix length from /8 to /32",
      "rules[6].configuration.value must have an IPv6 prefix length from /16 to /128",
      "rules[7].configuration.value has an invalid network address",
      "rules[8].configuration.value must be a two-letter country code (ISO 3166-1 alpha-2)",
      "rules[9].notes must be a string of at most 1024 characters",
    ],
  },
  {
    what: "a configuration and an id used twice",
    method: "PUT",
    path: "/zones/{zone}/access_rules",
    body: {
      rules: [
        { id: "a".repeat(32), mode: "block", configuration: { target: "ip", value: "2001:db8::1" } },
        { id: "a".repeat(32), mode: "block", configuration: { target: "ip", value: "2001:DB8:0::1" } },
      ],
    },
    status: 400,
    code: 20026,
    messages: [`rules[1].id is already used by rules[0]`, "rules[1] has the same configuration as rules[0]"],
  },
  {
    what: "one rule over the limit",
    method: "PUT",
    path: "/zones/{zone}/access_rules",
    body: { rules: Array.from({ length: 10_001 }, () => 0) },
    status: 400,
    code: 20026,
    messages: ["at most 10000 access rules per zone (got 10001)"],
  },
  // POST /zones/{zone}/firewall/access_rules/rules and PATCH …/{rule_id}: one rule, its fields named as sent.
  {
    what: "a create body that is no object",
    method: "POST",
    path: "/zones/{zone}/firewall/access_rules/rules",
    body: [],
    status: 400,
    code: 20026,
    messages: ["body must be a JSON object {mode, configuration, notes?}"],
  },
  {
    what: "a create body with stray fields",
    method: "POST",
    path: "/zones/{zone}/firewall/access_rules/rules",
    body: { mode: "block", configuration: { target: "ip", value: "192.0.2.1" }, scope: "zone", paused: false },
    status: 400,
    code: 20026,
    messages: ["scope is not a field of an access rule", "paused is not a field of an access rule"],
  },
  {
    what: "a create body with wrong fields",
    method: "POST",
    path: "/zones/{zone}/firewall/access_rules/rules",
    body: { mode: "whitelist", configuration: { target: "ip", value: "192.0.2.300" } },
    status: 400,
    code: 20026,
    messages: [
      "mode must be one of: block",
      "configuration.value must be one IPv4 or IPv6 address (a range needs target ip_range)",
    ],
  },
  {
    what: "a create body without configuration",
    method: "POST",
    path: "/zones/{zone}/firewall/access_rules/rules",
    body: { mode: "block" },
    status: 400,
    code: 20026,
    messages: ["configuration must be an object {target, value}"],
  },
  // PUT /zones/{zone}/custom_pages/{id} (docs/custom-errors.md "Error pages"): 20023, "<path>: <rule>".
  {
    what: "a body that is no object",
    method: "PUT",
    path: "/zones/{zone}/custom_pages/500_errors",
    body: [1],
    status: 400,
    code: 20023,
    messages: ["body: must be a JSON object"],
  },
  {
    what: "every field wrong at once",
    method: "PUT",
    path: "/zones/{zone}/custom_pages/500_errors",
    body: { extra: 1, state: "custom", content: 5, url: 7 },
    status: 400,
    code: 20023,
    messages: [
      "extra: is not a custom page field",
      'state: must be "customized" or "default"',
      "content: must be a non-empty HTML string",
      "url: must be a URL string",
    ],
  },
  {
    what: "a customized page without content",
    method: "PUT",
    path: "/zones/{zone}/custom_pages/500_errors",
    body: { state: "customized" },
    status: 400,
    code: 20023,
    messages: ["content: must be a non-empty HTML string"],
  },
  {
    what: "a default page with content",
    method: "PUT",
    path: "/zones/{zone}/custom_pages/1000_errors",
    body: { state: "default", content: "<html></html>" },
    status: 400,
    code: 20023,
    messages: ["content: must be absent when state is default"],
  },
  // POST|PUT /zones/{zone}/custom_pages/assets[/{name}] (docs/custom-errors.md "Custom error assets"): 20050.
  {
    what: "a body that is no object",
    method: "POST",
    path: "/zones/{zone}/custom_pages/assets",
    body: [1],
    status: 400,
    code: 20050,
    messages: [`${ASSET}body must be a JSON object {name, description, url}`],
  },
  {
    what: "every field wrong at once",
    method: "POST",
    path: "/zones/{zone}/custom_pages/assets",
    body: { kind: "html", name: "a b", description: 5, url: "" },
    status: 400,
    code: 20050,
    messages: [
      `${ASSET}kind is not a custom asset field`,
      `${ASSET}name "a b" may only contain letters (A-Z, a-z), digits (0-9) and underscores (_)`,
      `${ASSET}description must be a string of at most 500 characters`,
      `${ASSET}url must be 1 to 2048 characters`,
    ],
  },
  {
    what: "an empty body",
    method: "POST",
    path: "/zones/{zone}/custom_pages/assets",
    body: {},
    status: 400,
    code: 20050,
    messages: [`${ASSET}name is required`, `${ASSET}url is required`],
  },
  {
    what: "a name too long, and a URL off the zone",
    method: "POST",
    path: "/zones/{zone}/custom_pages/assets",
    body: { name: "a".repeat(201), url: "http://other.example/a.html" },
    status: 400,
    code: 20050,
    messages: [`${ASSET}name must be 1 to 200 characters`],
  },
  {
    what: "a new name in an update",
    method: "PUT",
    path: "/zones/{zone}/custom_pages/assets/kept",
    body: { name: "other", url: "http://example.net/" },
    status: 400,
    code: 20050,
    messages: [`${ASSET}name must be "kept" (an asset's name cannot change)`],
  },
  // PUT /zones/{zone}/telemetry (docs/telemetry.md "Settings"): 20140, "Invalid telemetry: <path> <rule>".
  {
    what: "a body that is no object",
    method: "PUT",
    path: "/zones/{zone}/telemetry",
    body: [1],
    status: 400,
    code: 20140,
    messages: [`${TELE}body must be a JSON object`],
  },
  {
    what: "every field wrong at once",
    method: "PUT",
    path: "/zones/{zone}/telemetry",
    body: {
      extra: 1,
      otlp: { endpoint: "", protocol: "grpc", headers: { "bad name": "v", "x-key": " padded" }, port: 4318 },
      sample: { errors: 2, requests: "all" },
      trace_context: "always",
    },
    status: 400,
    code: 20140,
    messages: [
      `${TELE}extra is not a telemetry setting (otlp, sample, trace_context)`,
      `${TELE}otlp.port is not a field of otlp (endpoint, logs_endpoint, protocol, headers)`,
      `${TELE}otlp.endpoint must be an absolute https URL of at most 2048 characters`,
      `${TELE}otlp.protocol must be one of http/json, http/protobuf`,
      `${TELE}otlp.headers.bad name is not a header name (RFC 9110 token)`,
      `${TELE}otlp.headers.x-key must be a header value of visible ASCII characters, at most 4096`,
      `${TELE}sample.errors must be a number from 0 to 1`,
      `${TELE}sample.requests must be a number from 0 to 1`,
      `${TELE}trace_context must be one of accept, ignore`,
    ],
  },
  {
    what: "a missing otlp",
    method: "PUT",
    path: "/zones/{zone}/telemetry",
    body: { sample: { errors: 1 } },
    status: 400,
    code: 20140,
    messages: [`${TELE}otlp must be a JSON object`],
  },
  {
    what: "headers the export sets itself, and too many",
    method: "PUT",
    path: "/zones/{zone}/telemetry",
    body: {
      otlp: {
        ...OTLP_OK,
        headers: Object.fromEntries(
          ["Content-Type", ...Array.from({ length: 16 }, (_, i) => `x-h${i}`)].map((k) => [k, "v"]),
        ),
      },
    },
    status: 400,
    code: 20140,
    messages: [
      `${TELE}otlp.headers must have at most 16 headers`,
      `${TELE}otlp.headers must not set content-type, content-length, host, connection, transfer-encoding, te (the export sets them)`,
    ],
  },
  {
    what: "endpoints the webhook target rules refuse",
    method: "PUT",
    path: "/zones/{zone}/telemetry",
    body: {
      otlp: {
        endpoint: "http://otlp.example.net/v1/traces",
        logs_endpoint: "https://10.0.0.1/v1/logs",
        protocol: "http/json",
      },
    },
    status: 400,
    code: 20140,
    messages: [
      `${TELE}otlp.endpoint must use https (http only for a loopback receiver under \`wrangler dev\`)`,
      `${TELE}otlp.logs_endpoint 10.0.0.1 is a private address: it must be a public host`,
    ],
  },
  // PUT /zones/{zone}/analytics/settings (docs/analytics.md "Shards"): 20100, "<path> <rule>".
  {
    what: "a shard count out of range",
    method: "PUT",
    path: "/zones/{zone}/analytics/settings",
    body: { shards: 65 },
    status: 400,
    code: 20100,
    messages: ["shards must be an integer from 1 to 64; got 65"],
  },
  {
    what: "no shard count and an unknown field",
    method: "PUT",
    path: "/zones/{zone}/analytics/settings",
    body: { shard: 4 },
    status: 400,
    code: 20100,
    messages: ["shard is not an analytics setting (only shards)", "shards must be an integer from 1 to 64; got null"],
  },
  // POST|PUT /zones/{zone}/analytics/alerts (docs/analytics.md "Alerts"): the first refusal, its own code (20105 a
  // field, 20106 a window, 20108 the webhook URL), the field path first.
  // POST /zones/{zone}/preview/replay (docs/custom-errors.md "Replay"): 20091, "<path>: <rule>". Three rows: a
  // token replays a zone 3 times in a burst (src/api/explain/bound.ts), refused bodies included.
  {
    what: "a body that is no object",
    method: "POST",
    path: "/zones/{zone}/preview/replay",
    body: [1],
    status: 400,
    code: 20091,
    messages: ["body: must be a JSON object {draft?, window?, samples?}"],
  },
  {
    what: "every field wrong at once",
    method: "POST",
    path: "/zones/{zone}/preview/replay",
    body: { extra: 1, draft: { rules: [], zones: 1 }, window: { since: "yesterday", limit: 0, x: 1 }, samples: 11 },
    status: 400,
    code: 20091,
    messages: [
      "extra: is not a replay field",
      "draft.zones: is not a draft field",
      "window.x: is not a window field",
      "window.since: must be an RFC 3339 time or epoch seconds",
      "window.limit: must be an integer from 1 to 1000",
      "samples: must be an integer from 0 to 10",
    ],
  },
  {
    what: "a window that ends before it starts",
    method: "POST",
    path: "/zones/{zone}/preview/replay",
    body: { window: { since: 4102444800 } },
    status: 400,
    code: 20091,
    messages: ["window.until: must be after since (and after retention's start, 7 days ago)"],
  },
  // POST /zones/{zone}/preview (docs/custom-errors.md "Draft preview"): 20030, "<path>: <rule>", one per field, each
  // object's unknown keys first; draft rules and pages answer 20021 / 20023 as their writes do.
  {
    what: "a body that is no object",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: [1],
    status: 400,
    code: 20030,
    messages: ["body: must be a JSON object {draft?, request}"],
  },
  {
    what: "unknown fields at every level and a described request wrong in three fields",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: {
      extra: 1,
      draft: { rules: [], zones: 1, pages: { "404_errors": {} } },
      request: { method: "TRACE", path: "x", country: "de", body: 1, code: 521 },
    },
    status: 400,
    code: 20030,
    messages: [
      "extra: is not a preview field",
      "draft.zones: is not a draft field",
      "draft.pages.404_errors: is not a page: one of 500_errors, 1000_errors",
      "request.body: is not a field of a described request",
      "request.method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "request.path: must start with / and hold visible ASCII only, no # (percent-encode anything else)",
      "request.country: must be a two-letter upper-case country code (ISO 3166-1 alpha-2)",
    ],
  },
  {
    what: "no request",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { draft: [] },
    status: 400,
    code: 20030,
    messages: [
      "draft: must be an object {rules?, pages?}",
      "request: must be an object {method?, path?, headers?, client_ip?, country?, code | origin}",
    ],
  },
  {
    what: "neither code nor origin",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { path: "/" } },
    status: 400,
    code: 20030,
    messages: ["request.code: give exactly one of code (a catalog error) or origin (what the origin did)"],
  },
  {
    what: "a header name and a header value refused",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { code: 521, headers: { "a b": "1", "X-A": "1\r\nX-B: 2" } } },
    status: 400,
    code: 20030,
    messages: [
      "request.headers.a b: is not a header name (RFC 9110 token characters, at most 256)",
      "request.headers.X-A: must hold no control characters and only Latin-1 (RFC 9110 §5.5)",
    ],
  },
  {
    what: "a header the preview sets itself",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { code: 521, headers: { Host: "evil.example" } } },
    status: 400,
    code: 20030,
    messages: ["request.headers.Host: is set by the preview (the host is the zone; give client_ip for the address)"],
  },
  {
    what: "an origin wrong in three fields",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { origin: { status: 99, body: 5, extra: 1 } } },
    status: 400,
    code: 20030,
    messages: [
      "request.origin.extra: is not an origin field",
      "request.origin.status: must be an integer from 200 to 599",
      "request.origin.body: must be a string of at most 65536 characters",
    ],
  },
  {
    what: "an origin failure with a body",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { origin: { failure: "refused", body: "x" } } },
    status: 400,
    code: 20030,
    messages: ["request.origin.failure: takes no headers or body (the origin sent no response)"],
  },
  {
    what: "a code not in the catalog",
    method: "POST",
    path: "/zones/{zone}/preview",
    body: { request: { code: "521" } },
    status: 400,
    code: 20030,
    messages: ["request.code: must be an error code of the catalog (GET /cdn-cgi/errors lists them)"],
  },
  ...tracerRows(),
  ...alertRows(),
  ...tagPolicyRows(),
  ...tagBodyRows(),
  ...bulkRows(),
  ...rulesetRows(),
  ...bundleRows(),
];

/**
 * Alert policy bodies: each refusal names one field (the first thing wrong), with its own code. One wording moved
 * with the schema: an unknown field is named path first, as on every other endpoint (`extra is not a field of a
 * threshold policy; its fields are …`, `filter.method is not a filter; …`), where the hand-written validator said
 * `unknown field "extra" for a threshold policy; …` and `unknown filter "method"; …` and, for a webhook with another
 * key, `webhook must be {"url": "https://…"}`.
 */
function alertRows(): Row[] {
  const hook = { url: "https://hooks.example.com/a" };
  const base = { name: "p", kind: "threshold", metric: "errors", window_minutes: 5, above: 10, webhook: hook };
  const burn = { name: "b", kind: "burn_rate", slo: 99.9, webhook: hook };
  const row = (what: string, body: unknown, code: number, message: string): Row => ({
    what,
    method: "POST",
    path: "/zones/{zone}/analytics/alerts",
    body,
    status: 400,
    code,
    messages: [message],
  });
  const threshold =
    "kind, name, enabled, resolve_after, min_requests, webhook, metric, window_minutes, above, resolve_below, filter";
  return [
    row("a body that is no object", [1], 20105, 'the body must be a JSON object (docs/analytics.md "Alerts")'),
    row(
      "an unknown kind",
      { ...base, kind: "anomaly" },
      20105,
      'kind must be "threshold" or "burn_rate"; got "anomaly"',
    ),
    row(
      "a stray field and an empty name",
      { ...base, extra: 1, name: "" },
      20105,
      `extra is not a field of a threshold policy; its fields are ${threshold}`,
    ),
    row(
      "a burn-rate field on a threshold policy",
      { ...base, slo: 99 },
      20105,
      `slo is not a field of a threshold policy; its fields are ${threshold}`,
    ),
    row("an empty name", { ...base, name: "" }, 20105, "name must be one line of 1 to 100 characters"),
    row("a name of two lines", { ...base, name: "a\nb" }, 20105, "name must be one line of 1 to 100 characters"),
    row("enabled that is no boolean", { ...base, enabled: "yes" }, 20105, "enabled must be true or false"),
    row(
      "resolve_after 0",
      { ...base, resolve_after: 0 },
      20105,
      "resolve_after must be an integer from 1 to 60 (evaluations)",
    ),
    row("min_requests 0", { ...base, min_requests: 0 }, 20105, "min_requests must be an integer from 1 to 1000000000"),
    row(
      "a webhook that is no object",
      { ...base, webhook: "https://hooks.example.com/a" },
      20105,
      'webhook must be {"url": "https://…"}',
    ),
    row(
      "a webhook with a secret of its own",
      { ...base, webhook: { ...hook, secret: "mine" } },
      20105,
      "webhook.secret is not a field of webhook (only url)",
    ),
    row(
      "a URL too long",
      { ...base, webhook: { url: `https://hooks.example.com/${"a".repeat(2100)}` } },
      20108,
      "webhook.url must be an absolute https URL of at most 2048 characters",
    ),
    row("a URL that is no URL", { ...base, webhook: { url: "not a url" } }, 20108, "webhook.url is not a URL"),
    row(
      "an unknown metric",
      { ...base, metric: "latency" },
      20105,
      'metric must be "errors" or "error_rate"; got "latency"',
    ),
    row(
      "a window of 61 minutes",
      { ...base, window_minutes: 61 },
      20106,
      "window_minutes must be an integer from 1 to 60; got 61",
    ),
    row(
      "a rate above 1",
      { ...base, metric: "error_rate", above: 2 },
      20105,
      "above must be a number in (0, 1] (errors ÷ requests in the window)",
    ),
    row(
      "resolve_below over above",
      { ...base, resolve_below: 11 },
      20105,
      "resolve_below must be a number from 0 to above (10)",
    ),
    row(
      "an unknown filter",
      { ...base, filter: { method: "GET" } },
      20105,
      "filter.method is not a filter; filters are code, source, path",
    ),
    row(
      "a filter code out of range",
      { ...base, filter: { code: 42 } },
      20105,
      "filter.code must be an integer from 100 to 9999 (a catalog code or an origin status)",
    ),
    row(
      "a filter source unknown",
      { ...base, filter: { source: "cdn" } },
      20105,
      'filter.source must be "edge" or "origin"',
    ),
    row(
      "a filter path without its slash",
      { ...base, filter: { path: "no-slash" } },
      20105,
      "filter.path must be a path as recorded: starting with /, at most 256 characters, no query, spaces or controls",
    ),
    row("an SLO of 100", { ...burn, slo: 100 }, 20105, "slo must be a percentage from 50 to 99.999 (e.g. 99.9)"),
    row(
      "a long window of 5000 minutes",
      { ...burn, long_window_minutes: 5000 },
      20106,
      "long_window_minutes must be an integer from 5 to 4320",
    ),
    row(
      "a short window as long as the long one",
      { ...burn, short_window_minutes: 60, long_window_minutes: 60 },
      20106,
      "short_window_minutes must be shorter than long_window_minutes",
    ),
    row("a burn rate of 0", { ...burn, burn_rate: 0 }, 20105, "burn_rate must be a number from 1 to 1000"),
  ];
}

/**
 * Tag policy bodies (docs/tags-api.md "Policies"): 1022, "Invalid tag policy: " and the first thing wrong, the field
 * path first; an item of a list or a key of a map is named by its list or map and its value.
 */
function tagPolicyRows(): Row[] {
  const row = (what: string, body: unknown, message: string): Row => ({
    what,
    method: "PUT",
    path: `/accounts/${POLICY_ACCOUNT}/tags/policy`,
    body,
    status: 400,
    code: 1022,
    messages: [`Invalid tag policy: ${message}`],
  });
  const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `k${i}`);
  const patterns = (n: number): Record<string, unknown> =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { pattern: "[a-z]+" }]));
  const shape = 'must be {"values": [...]} or {"pattern": "..."}';
  return [
    row("a body that is no object", [1], "the body must be a JSON object"),
    row("an unknown field before a bad mode", { mode: "strict", extra: 1 }, 'unknown field "extra"'),
    row("an unknown mode", { mode: "strict", key_case: "title" }, 'mode must be "advisory" or "enforced"'),
    row("an unknown key case", { key_case: "title" }, 'key_case must be "any", "lower" or "upper"'),
    row("allowed_keys that is no list", { allowed_keys: "env" }, "allowed_keys must be an array of tag keys"),
    row("1,001 allowed keys", { allowed_keys: keys(1001) }, "allowed_keys has more than 1000 keys"),
    row(
      "an allowed key with a space",
      { allowed_keys: ["env", "bad key"] },
      'allowed_keys: "bad key" is not a valid tag key',
    ),
    row("an allowed key that is no string", { allowed_keys: [7] }, "allowed_keys: 7 is not a valid tag key"),
    row(
      "an allowed key of 257 code points",
      { allowed_keys: ["k".repeat(257)] },
      `allowed_keys: "${"k".repeat(257)}" is not a valid tag key`,
    ),
    row(
      "allowed_values that is a list",
      { allowed_values: [] },
      "allowed_values must be an object of key → {values} or {pattern}",
    ),
    row(
      "allowed_values of a bad key",
      { allowed_values: { "bad key": { values: [] } } },
      'allowed_values: "bad key" is not a valid tag key',
    ),
    row(
      "a rule with both values and pattern",
      { allowed_values: { env: { values: [], pattern: "a" } } },
      `allowed_values.env ${shape}`,
    ),
    row("a rule of another field", { allowed_values: { env: { other: 1 } } }, `allowed_values.env ${shape}`),
    row("a rule that is a string", { allowed_values: { env: "prod" } }, `allowed_values.env ${shape}`),
    row(
      "values that are no list",
      { allowed_values: { env: { values: "prod" } } },
      "allowed_values.env.values must be an array of at most 1000 strings",
    ),
    row(
      "1,001 values",
      { allowed_values: { env: { values: keys(1001) } } },
      "allowed_values.env.values must be an array of at most 1000 strings",
    ),
    row(
      "a value that is no string",
      { allowed_values: { env: { values: ["a", 1] } } },
      "allowed_values.env.values: 1 is not a valid value",
    ),
    row(
      "a value that is no well-formed Unicode",
      { allowed_values: { env: { values: ["\ud800"] } } },
      'allowed_values.env.values: "\\ud800" is not a valid value',
    ),
    row(
      "a pattern that is no string",
      { allowed_values: { env: { pattern: 7 } } },
      "allowed_values.env.pattern must be a string",
    ),
    row(
      "a pattern of 257 characters",
      { allowed_values: { env: { pattern: "x".repeat(257) } } },
      "allowed_values.env.pattern: a pattern is at most 256 characters",
    ),
    row(
      "a pattern RE2 refuses",
      { allowed_values: { env: { pattern: "(a" } } },
      "allowed_values.env.pattern: invalid RE2 pattern: missing closing ): `(a`",
    ),
    row("101 patterns", { allowed_values: patterns(101) }, "at most 100 patterns"),
    row(
      "required_keys that is a list",
      { required_keys: [] },
      "required_keys must be an object of resource type → keys",
    ),
    row(
      "required keys of an unknown type",
      { required_keys: { nope: ["k"] } },
      'required_keys: unknown resource type "nope"',
    ),
    row(
      "required keys that are no list",
      { required_keys: { worker: "team" } },
      "required_keys.worker must be an array of tag keys",
    ),
    row(
      "1,001 required keys",
      { required_keys: { worker: keys(1001) } },
      "required_keys.worker has more than 1000 keys",
    ),
    row(
      "a required key with a space",
      { required_keys: { worker: ["bad key"] } },
      'required_keys.worker: "bad key" is not a valid tag key',
    ),
  ];
}

/**
 * Tag set bodies (docs/tags-api.md "Check order"): PUT and PATCH 1002, DELETE 1015, each check's own code after
 * the shape (1006 resource type, 1014/1011 keys, 1012 values), the first failing check wins.
 */
function tagBodyRows(): Row[] {
  const path = `/accounts/${POLICY_ACCOUNT}/tags`;
  const row = (what: string, method: Row["method"], body: unknown, code: number, message: string): Row => ({
    what,
    method,
    path,
    body,
    status: 400,
    code,
    messages: [message],
  });
  const put = (what: string, body: unknown, code: number, message: string): Row =>
    row(what, "PUT", body, code, message);
  const worker = { resource_type: "worker", resource_id: "api" };
  const set = "Invalid set payload: ";
  return [
    put("a body that is no object", [1], 1002, `${set}the body must be a JSON object`),
    put("an unknown field before bad tags", { ...worker, extra: 1, tags: 1 }, 1002, `${set}unknown field "extra"`),
    put("tags that are a list", { ...worker, tags: [] }, 1002, `${set}tags must be an object of string values`),
    put("a tag value that is no string", { tags: { a: 1 } }, 1002, `${set}the value of tag "a" must be a string`),
    put(
      "a tag value that is no well-formed Unicode, before a bad key",
      { ...worker, tags: { "bad key": "x", a: "\ud800" } },
      1002,
      `${set}the value of tag "a" is not well-formed Unicode`,
    ),
    put("no resource_type", { resource_id: "api" }, 1002, `${set}resource_type is required (a string)`),
    put(
      "an empty resource_type",
      { resource_type: "", resource_id: "api" },
      1002,
      `${set}resource_type is required (a string)`,
    ),
    put(
      "a resource_id of 257 characters",
      { resource_type: "worker", resource_id: "i".repeat(257) },
      1002,
      `${set}resource_id is required (a string of 1 to 256 characters)`,
    ),
    put(
      "an unknown resource type before a bad key",
      { resource_type: "spaceship", resource_id: "a", tags: { "bad key": "x" } },
      1006,
      'Invalid resource type "spaceship" for this endpoint',
    ),
    put(
      "a zone resource type on the account route",
      { resource_type: "zone", resource_id: "a" },
      1006,
      'Invalid resource type "zone" for this endpoint',
    ),
    put(
      "a worker version without its worker, before a bad key",
      { resource_type: "worker_version", resource_id: "v1", tags: { "bad key": "x" } },
      1002,
      `${set}worker_id is required for resource_type worker_version`,
    ),
    put(
      "a worker_id on a worker",
      { ...worker, worker_id: "w" },
      1002,
      `${set}worker_id is only accepted with resource_type worker_version`,
    ),
    put(
      "a key with a space before a key too long",
      { ...worker, tags: { "bad key": "x", ["k".repeat(257)]: "y" } },
      1014,
      `Invalid tag key "bad key": keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'`,
    ),
    put(
      "a key too long before a value too long",
      { ...worker, tags: { a: "v".repeat(1025), ["k".repeat(257)]: "y" } },
      1011,
      "tag key too long (maximum 256 characters)",
    ),
    put(
      "a value too long",
      { ...worker, tags: { a: "v".repeat(1025) } },
      1012,
      "tag value too long (maximum 1024 characters)",
    ),
    row("a patch without tags", "PATCH", worker, 1002, `${set}tags must be an object whose values are strings or null`),
    row(
      "a patch value that is a number",
      "PATCH",
      { ...worker, tags: { a: 1 } },
      1002,
      `${set}the value of tag "a" must be a string, or null to remove it`,
    ),
    row(
      "a patch removing a bad key",
      "PATCH",
      { ...worker, tags: { "bad key": null } },
      1014,
      `Invalid tag key "bad key": keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'`,
    ),
    row(
      "a delete of an unknown field",
      "DELETE",
      { ...worker, tags: {} },
      1015,
      'Invalid delete payload: unknown field "tags"',
    ),
    row(
      "a delete without resource_id",
      "DELETE",
      { resource_type: "worker" },
      1015,
      "Invalid delete payload: resource_id is required (a string of 1 to 256 characters)",
    ),
  ];
}

/**
 * Ruleset and rule bodies (docs/rulesets-api.md): 20021, every issue listed (at most 20, then a line counting the
 * rest) as `<path>: <rule>`, a rule's fields named `rules[i].field`; a rule-level edit names the sent rule's own
 * fields (`expression`, `position.index`). `{ruleset}` is the zone's firewall ruleset, rules RULE_A and RULE_B.
 */
function rulesetRows(): Row[] {
  const entrypoint = (phase: string): string => `/zones/{zone}/rulesets/phases/${phase}/entrypoint`;
  const FIREWALL = entrypoint("http_request_firewall_custom");
  const ERRORS = entrypoint("http_custom_errors");
  const LIMIT = entrypoint("http_ratelimit");
  const row = (what: string, method: Row["method"], path: string, body: unknown, messages: string[]): Row => ({
    what,
    method,
    path,
    body,
    status: 400,
    code: 20021,
    messages,
  });
  const block = { expression: 'http.request.uri.path eq "/x"', action: "block" };
  const serve = (action_parameters: unknown): unknown => ({
    rules: [{ expression: "http.response.code eq 502", action: "serve_error", action_parameters }],
  });
  const limit = (ratelimit: unknown): unknown => ({ rules: [{ ...block, ratelimit }] });
  const rateOk = { characteristics: ["ip.src"], period: 60, requests_per_period: 10, mitigation_timeout: 60 };
  return [
    row("a ruleset that is no object", "PUT", FIREWALL, [1], ["body: must be a JSON object with a `rules` array"]),
    row("a ruleset without rules", "PUT", FIREWALL, {}, ["rules: must be an array"]),
    row(
      "every ruleset field wrong",
      "PUT",
      FIREWALL,
      { extra: 1, phase: "http_ratelimit", kind: "root", name: "", description: 5, rules: {} },
      [
        "extra: is not a ruleset field",
        "phase: must be http_request_firewall_custom (the path's phase)",
        'kind: must be "zone" (a zone\'s entry point ruleset)',
        "name: must be a string of 1 to 255 characters",
        "description: must be a string of at most 500 characters",
        "rules: must be an array",
      ],
    ),
    row("51 rules on business", "PUT", FIREWALL, { name: "x".repeat(256), rules: Array(51).fill(block) }, [
      "name: must be a string of 1 to 255 characters",
      "rules: at most 50 rules in http_request_firewall_custom on the business plan (docs/custom-errors.md)",
    ]),
    row("a rule that is no object", "PUT", FIREWALL, { rules: [1, block, "r"] }, [
      "rules[0].rule: must be an object",
      "rules[2].rule: must be an object",
    ]),
    row(
      "every rule field wrong",
      "PUT",
      FIREWALL,
      {
        rules: [
          {
            extra: 1,
            id: "XYZ",
            action: "serve_error",
            description: "d".repeat(501),
            enabled: "yes",
            expression: "",
            action_parameters: {},
            ratelimit: {},
          },
        ],
      },
      [
        "rules[0].extra: is not a rule field",
        "rules[0].id: must be 32 lower-case hex characters",
        'rules[0].action: must be "block" in http_request_firewall_custom',
        "rules[0].description: must be a string of at most 500 characters",
        "rules[0].enabled: must be true or false",
        "rules[0].expression: must be a non-empty string",
        "rules[0].action_parameters: is not used in http_request_firewall_custom",
        "rules[0].ratelimit: is only used in http_ratelimit",
      ],
    ),
    row("an id that is no string", "PUT", FIREWALL, { rules: [{ ...block, id: 5 }, { expression: 7 }] }, [
      "rules[0].id: must be 32 lower-case hex characters",
      'rules[1].action: must be "block" in http_request_firewall_custom',
      "rules[1].expression: must be a non-empty string",
    ]),
    row(
      "expressions the engine refuses",
      "PUT",
      FIREWALL,
      {
        rules: [
          { ...block, expression: "http.host eq" },
          { ...block, expression: "http.response.code eq 1" },
        ],
      },
      [
        "rules[0].expression: 1:13: expected a value after the operator, found the end of the expression",
        "rules[1].expression: 1:1: unknown field `http.response.code`",
      ],
    ),
    row(
      "two rules with one id",
      "PUT",
      FIREWALL,
      {
        rules: [
          { ...block, id: RULE_A },
          { ...block, id: RULE_A },
        ],
      },
      ["rules[1].id: is used by another rule of this ruleset"],
    ),
    row("25 bad rules: 20 listed", "PUT", FIREWALL, { rules: Array(25).fill({ ...block, action: "skip" }) }, [
      'rules[0].action: must be "block" in http_request_firewall_custom',
      'rules[1].action: must be "block" in http_request_firewall_custom',
      'rules[2].action: must be "block" in http_request_firewall_custom',
      'rules[3].action: must be "block" in http_request_firewall_custom',
      'rules[4].action: must be "block" in http_request_firewall_custom',
      'rules[5].action: must be "block" in http_request_firewall_custom',
      'rules[6].action: must be "block" in http_request_firewall_custom',
      'rules[7].action: must be "block" in http_request_firewall_custom',
      'rules[8].action: must be "block" in http_request_firewall_custom',
      'rules[9].action: must be "block" in http_request_firewall_custom',
      'rules[10].action: must be "block" in http_request_firewall_custom',
      'rules[11].action: must be "block" in http_request_firewall_custom',
      'rules[12].action: must be "block" in http_request_firewall_custom',
      'rules[13].action: must be "block" in http_request_firewall_custom',
      'rules[14].action: must be "block" in http_request_firewall_custom',
      'rules[15].action: must be "block" in http_request_firewall_custom',
      'rules[16].action: must be "block" in http_request_firewall_custom',
      'rules[17].action: must be "block" in http_request_firewall_custom',
      'rules[18].action: must be "block" in http_request_firewall_custom',
      'rules[19].action: must be "block" in http_request_firewall_custom',
      "and 5 more errors not listed",
    ]),
    row("serve_error parameters that are no object", "PUT", ERRORS, serve("x"), [
      "rules[0].action_parameters: must be an object {content, content_type, status_code?}, {asset_name, status_code?} or {overlay}",
    ]),
    row("serve_error parameters left out", "PUT", ERRORS, serve(undefined), [
      "rules[0].action_parameters: must be an object {content, content_type, status_code?}, {asset_name, status_code?} or {overlay}",
    ]),
    row(
      "inline content every field wrong",
      "PUT",
      ERRORS,
      serve({ x: 1, content: "", content_type: "text/rtf", status_code: 200 }),
      [
        "rules[0].action_parameters.x: is not a parameter of serve_error",
        "rules[0].action_parameters.content: must be a string of 1 to 10240 bytes",
        "rules[0].action_parameters.content_type: must be one of application/json, text/html, text/plain, text/xml, text/markdown, application/problem+json",
        "rules[0].action_parameters.status_code: must be an integer from 400 to 599 (docs/custom-errors.md)",
      ],
    ),
    row("content over 10,240 bytes", "PUT", ERRORS, serve({ content: "é".repeat(5121), content_type: "text/html" }), [
      "rules[0].action_parameters.content: must be a string of 1 to 10240 bytes",
    ]),
    row("content that is no string", "PUT", ERRORS, serve({ content: 5, status_code: 404.5 }), [
      "rules[0].action_parameters.content: must be a string of 1 to 10240 bytes",
      "rules[0].action_parameters.content_type: must be one of application/json, text/html, text/plain, text/xml, text/markdown, application/problem+json",
      "rules[0].action_parameters.status_code: must be an integer from 400 to 599 (docs/custom-errors.md)",
    ]),
    row(
      "an asset with content",
      "PUT",
      ERRORS,
      serve({ asset_name: "bad name!", content: "x", content_type: "text/plain", status_code: 1000, y: 1 }),
      [
        "rules[0].action_parameters.content: must be absent when asset_name is given (exactly one of them)",
        "rules[0].action_parameters.y: is not a parameter of serve_error",
        "rules[0].action_parameters.content_type: must be text/html or absent with asset_name (an asset is an HTML page)",
        'rules[0].action_parameters.asset_name: "bad name!" may only contain letters (A-Z, a-z), digits (0-9) and underscores (_)',
        "rules[0].action_parameters.status_code: must be an integer from 400 to 599 (docs/custom-errors.md)",
      ],
    ),
    row("an asset name that is no string", "PUT", ERRORS, serve({ asset_name: 5 }), [
      "rules[0].action_parameters.asset_name: must be a string",
    ]),
    row(
      "an overlay beside fixed content",
      "PUT",
      ERRORS,
      serve({ overlay: {}, status_code: 500, content: "x", content_type: "text/html", asset_name: "a", z: 1 }),
      [
        "rules[0].action_parameters.status_code: cannot be used with overlay: the overlaid error keeps its status",
        "rules[0].action_parameters.content: cannot be used with overlay: a rule serves either fixed content or an overlay of the structured error",
        "rules[0].action_parameters.content_type: cannot be used with overlay: the overlaid error keeps the negotiated format",
        "rules[0].action_parameters.asset_name: cannot be used with overlay: a rule serves either an asset or an overlay of the structured error",
        "rules[0].action_parameters.z: is not a parameter of serve_error",
        "rules[0].action_parameters.overlay: must set at least one of detail, what_you_should_do, links, branding",
      ],
    ),
    row("an empty overlay", "PUT", ERRORS, serve({ overlay: {} }), [
      "rules[0].action_parameters.overlay: must set at least one of detail, what_you_should_do, links, branding",
    ]),
    row("an overlay that is no object", "PUT", ERRORS, serve({ overlay: "x" }), [
      "rules[0].action_parameters.overlay: must be an object {detail?, what_you_should_do?, links?, branding?}",
    ]),
    row(
      "overlay texts and links wrong",
      "PUT",
      ERRORS,
      serve({
        overlay: {
          other: 1,
          detail: "",
          what_you_should_do: "a\u0001",
          links: [
            { title: "t" },
            5,
            { title: "a\nb", href: "ftp://x", extra: 1 },
            { title: 7, href: "https://u:p@x/" },
          ],
        },
      }),
      [
        "rules[0].action_parameters.overlay.other: is not an overlay field",
        "rules[0].action_parameters.overlay.detail: must be a string of 1 to 1024 characters",
        "rules[0].action_parameters.overlay.what_you_should_do: must not contain control characters (a line break is allowed)",
        "rules[0].action_parameters.overlay.links[0].href: is required",
        "rules[0].action_parameters.overlay.links[1]: must be an object {title, href}",
        "rules[0].action_parameters.overlay.links[2].extra: is not a link field",
        "rules[0].action_parameters.overlay.links[2].title: must not contain control characters or line breaks",
        "rules[0].action_parameters.overlay.links[2].href: must be an https: or http: URL",
        "rules[0].action_parameters.overlay.links[3].title: must be a string of 1 to 120 characters",
        "rules[0].action_parameters.overlay.links[3].href: must not carry a user name or password",
      ],
    ),
    row(
      "overlay branding wrong",
      "PUT",
      ERRORS,
      serve({
        overlay: {
          detail: "   ",
          links: [],
          branding: { logo_url: "http://x/logo.png", accent_color: "red", name: "n\nm", k: 1 },
        },
      }),
      [
        "rules[0].action_parameters.overlay.detail: must not be only white space",
        "rules[0].action_parameters.overlay.links: must be a list of 1 to 5 links {title, href}",
        "rules[0].action_parameters.overlay.branding.k: is not a branding field",
        "rules[0].action_parameters.overlay.branding.name: must not contain control characters or line breaks",
        "rules[0].action_parameters.overlay.branding.logo_url: must be a data:image/(png|gif|jpeg|webp);base64 URI of at most 8192 characters (the page makes no external request, docs/errors.md)",
        "rules[0].action_parameters.overlay.branding.accent_color: must be a colour #rrggbb",
      ],
    ),
    row(
      "overlay values too long",
      "PUT",
      ERRORS,
      serve({
        overlay: {
          detail: "d".repeat(1025),
          what_you_should_do: "w".repeat(2049),
          links: Array(6).fill({ title: "t", href: "https://x.example/" }),
          branding: { logo_url: `data:image/png;base64,${"A".repeat(8192)}` },
        },
      }),
      [
        "rules[0].action_parameters.overlay.detail: must be a string of 1 to 1024 characters",
        "rules[0].action_parameters.overlay.what_you_should_do: must be a string of 1 to 2048 characters",
        "rules[0].action_parameters.overlay.links: must be a list of 1 to 5 links {title, href}",
        "rules[0].action_parameters.overlay.branding.logo_url: must be a data:image/(png|gif|jpeg|webp);base64 URI of at most 8192 characters (the page makes no external request, docs/errors.md)",
      ],
    ),
    row("an empty branding", "PUT", ERRORS, serve({ overlay: { branding: {} } }), [
      "rules[0].action_parameters.overlay.branding: must set at least one of name, logo_url, accent_color",
    ]),
    row(
      "a branding that is no object",
      "PUT",
      ERRORS,
      serve({
        overlay: {
          branding: [],
          links: "l",
        },
      }),
      [
        "rules[0].action_parameters.overlay.links: must be a list of 1 to 5 links {title, href}",
        "rules[0].action_parameters.overlay.branding: must be an object {name?, logo_url?, accent_color?}",
      ],
    ),
    row(
      "a link href that is no URL",
      "PUT",
      ERRORS,
      serve({
        overlay: {
          links: [
            { title: "t", href: "not a url" },
            { title: "t", href: "/relative" },
            { title: "", href: 5 },
          ],
        },
      }),
      [
        "rules[0].action_parameters.overlay.links[0].href: must be an absolute https: or http: URL without spaces",
        "rules[0].action_parameters.overlay.links[1].href: must be an absolute https: or http: URL",
        "rules[0].action_parameters.overlay.links[2].title: must be a string of 1 to 120 characters",
        "rules[0].action_parameters.overlay.links[2].href: must be a URL of at most 2048 characters",
      ],
    ),
    row(
      "ratelimit outside http_ratelimit",
      "PUT",
      ERRORS,
      {
        rules: [
          {
            expression: "http.response.code eq 502",
            action: "serve_error",
            action_parameters: { content: "x", content_type: "text/html" },
            ratelimit: {},
          },
        ],
      },
      ["rules[0].ratelimit: is only used in http_ratelimit"],
    ),
    row(
      "action_parameters outside http_custom_errors",
      "PUT",
      FIREWALL,
      { rules: [{ ...block, action_parameters: {} }] },
      ["rules[0].action_parameters: is not used in http_request_firewall_custom"],
    ),
    row("a rate-limiting rule without ratelimit", "PUT", LIMIT, limit(undefined), [
      "rules[0].ratelimit: must be an object {characteristics, period, requests_per_period, mitigation_timeout}",
    ]),
    row(
      "ratelimit every field wrong",
      "PUT",
      LIMIT,
      limit({
        x: 1,
        characteristics: ["ip.src", "ip.src", "bogus", 5],
        period: 0,
        requests_per_period: 1.5,
        mitigation_timeout: "1",
        counting: "maybe",
      }),
      [
        "rules[0].ratelimit.x: is not a rate-limiting field",
        'rules[0].ratelimit.characteristics[2]: bogus is not a supported characteristic (one of cf.colo.id, ip.src, ip.src.country, ip.src.asnum, http.host, http.request.uri.path, http.request.headers["name"], http.request.uri.args["name"], http.request.cookies["name"])',
        "rules[0].ratelimit.characteristics[3]: must be a string",
        "rules[0].ratelimit.characteristics: must not repeat a characteristic",
        "rules[0].ratelimit.period: must be an integer from 1 to 3600",
        "rules[0].ratelimit.requests_per_period: must be an integer from 1 to 1000000",
        "rules[0].ratelimit.mitigation_timeout: must be an integer from 1 to 3600",
        "rules[0].ratelimit.counting: must be one of approximate, exact",
      ],
    ),
    row(
      "no characteristics",
      "PUT",
      LIMIT,
      limit({
        ...rateOk,
        characteristics: [],
      }),
      ['rules[0].ratelimit.characteristics: must be a list of 1 to 8 characteristics, e.g. ["ip.src"]'],
    ),
    row("nine characteristics", "PUT", LIMIT, limit({ ...rateOk, characteristics: Array(9).fill("ip.src") }), [
      'rules[0].ratelimit.characteristics: must be a list of 1 to 8 characteristics, e.g. ["ip.src"]',
    ]),
    row(
      "characteristics that are no list",
      "PUT",
      LIMIT,
      limit({ ...rateOk, characteristics: "ip.src", period: 3601 }),
      [
        'rules[0].ratelimit.characteristics: must be a list of 1 to 8 characteristics, e.g. ["ip.src"]',
        "rules[0].ratelimit.period: must be an integer from 1 to 3600",
      ],
    ),
    row("ratelimit that is no object", "PUT", LIMIT, limit(5), [
      "rules[0].ratelimit: must be an object {characteristics, period, requests_per_period, mitigation_timeout}",
    ]),
    row(
      "a create that is no object",
      "POST",
      "/zones/{zone}/rulesets",
      [1],
      ["body: must be a JSON object {name, kind, phase, rules?}"],
    ),
    row("a create without kind", "POST", "/zones/{zone}/rulesets", { name: "n", phase: "http_ratelimit" }, [
      'kind: is required: "zone"',
    ]),
    row("a create of another kind", "POST", "/zones/{zone}/rulesets", { kind: "root", name: "n" }, [
      'kind: must be "zone": this service holds only zone entry point rulesets',
    ]),
    row("a create without name", "POST", "/zones/{zone}/rulesets", { kind: "zone", phase: "http_ratelimit" }, [
      "name: is required",
    ]),
    row("a create without phase", "POST", "/zones/{zone}/rulesets", { kind: "zone", name: "n", phase: 5 }, [
      "phase: is required: one of http_custom_errors, http_request_firewall_custom, http_ratelimit",
    ]),
    row("a create of an unknown phase", "POST", "/zones/{zone}/rulesets", { kind: "zone", name: "n", phase: "x" }, [
      "phase: must be one of http_custom_errors, http_request_firewall_custom, http_ratelimit",
    ]),
    row(
      "a create with bad rules",
      "POST",
      "/zones/{zone}/rulesets",
      { kind: "zone", name: 5, description: 7, phase: "http_ratelimit", rules: [block], extra: 1 },
      [
        "extra: is not a ruleset field",
        "name: must be a string of 1 to 255 characters",
        "description: must be a string of at most 500 characters",
        "rules[0].ratelimit: must be an object {characteristics, period, requests_per_period, mitigation_timeout}",
      ],
    ),
    row(
      "an update naming another phase",
      "PUT",
      "/zones/{zone}/rulesets/{ruleset}",
      { phase: "http_ratelimit", rules: [] },
      ["phase: must be http_request_firewall_custom (the path's phase)"],
    ),
    row(
      "an update with a bad rule",
      "PUT",
      "/zones/{zone}/rulesets/{ruleset}",
      { rules: [block, { ...block, enabled: 1 }] },
      ["rules[1].enabled: must be true or false"],
    ),
    row(
      "a new rule that is no object",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      [block],
      ["body: must be a JSON object (a rule)"],
    ),
    row(
      "a new rule with a bad expression",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, expression: "", x: 1 },
      ["x: is not a rule field", "expression: must be a non-empty string"],
    ),
    row("a new rule with a taken id", "POST", "/zones/{zone}/rulesets/{ruleset}/rules", { ...block, id: RULE_A }, [
      "id: is used by another rule of this ruleset (edit that rule instead)",
    ]),
    row("a position that is no object", "POST", "/zones/{zone}/rulesets/{ruleset}/rules", { ...block, position: 1 }, [
      'position: must be an object: {"before": id}, {"after": id} or {"index": n}',
    ]),
    row(
      "a position of another field",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { at: 1 } },
      ["position.at: is not a position field"],
    ),
    row("an empty position", "POST", "/zones/{zone}/rulesets/{ruleset}/rules", { ...block, position: {} }, [
      "position: must have exactly one of before, after or index",
    ]),
    row(
      "a position of two keys",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { before: "", index: 1 } },
      ["position: must have exactly one of before, after or index, not before and index"],
    ),
    row("an index of 0", "POST", "/zones/{zone}/rulesets/{ruleset}/rules", { ...block, position: { index: 0 } }, [
      "position.index: must be from 1 to 3 (the ruleset would have 3 rules)",
    ]),
    row(
      "an index past the end",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { index: 4 } },
      ["position.index: must be from 1 to 3 (the ruleset would have 3 rules)"],
    ),
    row(
      "an index that is a fraction",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { index: 1.5 } },
      ["position.index: must be an integer (1 is the first rule)"],
    ),
    row(
      "a before that is no string",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { before: 5 } },
      ["position.before: must be a rule id (a string)"],
    ),
    row(
      "an after naming no rule",
      "POST",
      "/zones/{zone}/rulesets/{ruleset}/rules",
      { ...block, position: { after: "c".repeat(32) } },
      ['position.after: names no rule of this ruleset: "cccccccccccccccccccccccccccccccc"'],
    ),
    row("an edit that is no object", "PATCH", `/zones/{zone}/rulesets/{ruleset}/rules/${RULE_A}`, null, [
      "body: must be a JSON object (a rule)",
    ]),
    row(
      "an edit changing the id",
      "PATCH",
      `/zones/{zone}/rulesets/{ruleset}/rules/${RULE_A}`,
      { ...block, id: RULE_B },
      ["id: must be the rule id of the path (a rule's id never changes)"],
    ),
    row(
      "an edit placing a rule after itself",
      "PATCH",
      `/zones/{zone}/rulesets/{ruleset}/rules/${RULE_A}`,
      { position: { after: RULE_A } },
      ["position.after: must name another rule, not the rule itself"],
    ),
    row(
      "an edit moving past the end",
      "PATCH",
      `/zones/{zone}/rulesets/{ruleset}/rules/${RULE_A}`,
      { position: { index: 3 } },
      ["position.index: must be from 1 to 2 (the ruleset would have 2 rules)"],
    ),
    row(
      "an edit with a bad definition",
      "PATCH",
      `/zones/{zone}/rulesets/{ruleset}/rules/${RULE_B}`,
      { expression: "true", action: "block", description: 5, position: { before: RULE_A } },
      ["description: must be a string of at most 500 characters"],
    ),
  ];
}

/**
 * Request tracer bodies (docs/custom-errors.md "Request tracer"): 20085, "<path>: <rule>", one per field, the body's
 * unknown keys first. The body is read before the account's zones, so any account of the token's reaches it.
 */
function tracerRows(): Row[] {
  const row = (what: string, body: unknown, messages: readonly string[]): Row => ({
    what,
    method: "POST",
    path: `/accounts/${POLICY_ACCOUNT}/request-tracer/trace`,
    body,
    status: 400,
    code: 20085,
    messages,
  });
  const get = { method: "GET", url: "https://shop.example/" };
  return [
    row(
      "a body that is no object",
      [1],
      ["body: must be a JSON object {method, url, headers?, context?, cookies?, origin?}"],
    ),
    row(
      "every field wrong at once",
      {
        extra: 1,
        method: "BREW",
        url: "ftp://x.example/",
        headers: [],
        cookies: 5,
        context: { x: 1, geoloc: { iso_code: "FRA" } },
        skip_response: "no",
      },
      [
        "extra: is not a trace field",
        "method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
        "url: must be an http or https URL",
        'headers: must be an object {"name": "value"}',
        'cookies: must be an object {"name": "value"}',
        "context.x: is not a context field",
        "context.geoloc.iso_code: must be a two-letter country code (ISO 3166-1 alpha-2)",
        "skip_response: must be a boolean",
      ],
    ),
    row("no method and no url", {}, [
      "method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "url: must be an absolute http or https URL of at most 8192 characters",
    ]),
    row("a url that is no URL", { ...get, url: "shop.example/x" }, [
      "url: must be an absolute http or https URL (https://zone.example/path)",
    ]),
    row("a url whose host is an address", { ...get, url: "http://192.0.2.1/" }, [
      "url: its host zone must be a hostname, not an IP address",
    ]),
    row("a context that is no object", { ...get, context: [] }, ["context: must be an object {geoloc?, …}"]),
    row("a geoloc that is no object", { ...get, context: { geoloc: "FR" } }, [
      "context.geoloc: must be an object {iso_code?, …}",
    ]),
    row("a header name that is no token", { ...get, headers: { "a b": "1" } }, [
      "headers.a b: is not a header name (RFC 9110 token characters, at most 256)",
    ]),
    row("a header value with a line break", { ...get, headers: { "X-A": "1\r\nX-B: 2" } }, [
      "headers.X-A: must hold no control characters and only Latin-1 (RFC 9110 §5.5)",
    ]),
    row("a Host header", { ...get, headers: { Host: "evil.example" } }, [
      "headers.Host: is set by the preview (the host is the zone; give client_ip for the address)",
    ]),
    row("a client address that is no address", { ...get, headers: { "CF-Connecting-IP": "nope" } }, [
      "headers.CF-Connecting-IP: must be an IPv4 or IPv6 address (the client's address)",
    ]),
    row("cookies that make a Cookie header too long", { ...get, cookies: { a: "v".repeat(9000) } }, [
      "cookies: must make one Cookie header of at most 8192 characters, with no control characters and only Latin-1 (RFC 9110 §5.5)",
    ]),
    row("contact that is not true", { ...get, origin: { contact: "yes" } }, [
      'origin.contact: must be true, alone: {"contact": true} sends the request to the origin',
    ]),
    row("contact beside a described answer", { ...get, origin: { contact: true, status: 200 } }, [
      'origin.contact: must be true, alone: {"contact": true} sends the request to the origin',
    ]),
    row("contact with a method that is not safe", { ...get, method: "POST", origin: { contact: true } }, [
      "origin.contact: sends only GET and HEAD to the origin, not POST",
    ]),
    row("contact with skip_response", { ...get, skip_response: true, origin: { contact: true } }, [
      "skip_response: cannot be true with origin.contact: the origin is not contacted then",
    ]),
    row("an origin that is no object", { ...get, origin: 5 }, [
      "origin: must be an object {status, headers?, body?} or {failure}",
    ]),
    row("an origin with neither status nor failure", { ...get, origin: {} }, [
      "origin.status: give exactly one of status (the origin's response) or failure",
    ]),
    row("an origin wrong in three fields", { ...get, origin: { status: 99, body: 5, extra: 1 } }, [
      "origin.extra: is not an origin field",
      "origin.status: must be an integer from 200 to 599",
      "origin.body: must be a string of at most 65536 characters",
    ]),
    row("an origin failure with a body", { ...get, origin: { failure: "refused", body: "x" } }, [
      "origin.failure: takes no headers or body (the origin sent no response)",
    ]),
    row("an origin failure not in the list", { ...get, origin: { failure: "fire" } }, [
      "origin.failure: must be one of refused, unreachable, unresolvable, connect-timeout, read-timeout, reset, malformed, tls-handshake, tls-certificate",
    ]),
  ];
}

/**
 * Bulk tag edits (docs/tags-api.md "Bulk edit"): the envelope first (1020; more than 100 edits 1021), then each edit
 * in order, its own envelope (op, if_match: 1020) and then its single-resource checks with their codes, the message
 * naming `edits[i]` and its resource_id; the first failing check wins.
 */
function bulkRows(): Row[] {
  const row = (what: string, body: unknown, code: number, message: string): Row => ({
    what,
    method: "POST",
    path: `/accounts/${POLICY_ACCOUNT}/tags/bulk`,
    body,
    status: 400,
    code,
    messages: [message],
  });
  const bulk = "Invalid bulk payload: ";
  const edit = { op: "merge", resource_type: "worker", resource_id: "api", tags: { a: "b" } };
  return [
    row("a body that is no object", [1], 1020, `${bulk}the body must be a JSON object`),
    row("an unknown field before bad edits", { extra: 1, edits: 5 }, 1020, `${bulk}unknown field "extra"`),
    row("no edits", {}, 1020, `${bulk}edits must be a non-empty array`),
    row("edits that are empty", { edits: [] }, 1020, `${bulk}edits must be a non-empty array`),
    row(
      "101 edits, the last one no object",
      { edits: [...Array.from({ length: 100 }, () => edit), 1] },
      1021,
      "too many edits in one bulk call: 101 (maximum 100)",
    ),
    row(
      "an edit that is no object",
      { edits: [edit, "x"] },
      1020,
      `edits[1]: ${bulk}an edit must be a JSON object; nothing was changed`,
    ),
    row(
      "an unknown op before a bad if_match",
      { edits: [{ ...edit, op: "upsert", if_match: 5 }] },
      1020,
      `edits[0] (resource_id "api"): ${bulk}op must be "merge", "replace" or "delete"; nothing was changed`,
    ),
    row(
      "an if_match that is no string",
      { edits: [{ ...edit, if_match: 5 }] },
      1020,
      `edits[0] (resource_id "api"): ${bulk}if_match must be an ETag string; nothing was changed`,
    ),
    row(
      "a bad merge before a later edit with no op",
      { edits: [{ ...edit, tags: { "bad key": "x" } }, { resource_type: "worker" }] },
      1014,
      `edits[0] (resource_id "api"): Invalid tag key "bad key": keys are letters of any script (with combining marks), decimal digits, '_', '.' and '-'; nothing was changed`,
    ),
    row(
      "a merge without resource_id (its endpoint's check, not the envelope's)",
      { edits: [{ op: "merge", resource_type: "worker", tags: {} }] },
      1002,
      `edits[0]: Invalid set payload: resource_id is required (a string of 1 to 256 characters); nothing was changed`,
    ),
    row(
      "a delete without resource_type",
      { edits: [{ op: "delete", resource_id: "db" }] },
      1015,
      `edits[0] (resource_id "db"): Invalid delete payload: resource_type is required (a string); nothing was changed`,
    ),
    row(
      "a replace with tags that are a list",
      { edits: [{ ...edit, op: "replace", tags: [] }] },
      1002,
      `edits[0] (resource_id "api"): Invalid set payload: tags must be an object of string values; nothing was changed`,
    ),
    row(
      "a delete with tags",
      { edits: [edit, { ...edit, op: "delete", resource_id: "db" }] },
      1015,
      `edits[1] (resource_id "db"): Invalid delete payload: unknown field "tags"; nothing was changed`,
    ),
  ];
}

/**
 * Bundles (docs/config-as-code.md "Planning and applying"): one bad section each, the rest left out (a section left
 * out is left as it is). The bundle's schema answers 20150 with every issue named by section and field; a section's
 * own validator answers its own code, prefixed by the section. Each refusal leaves the bundle's ETag as it was.
 */
function bundleRows(): Row[] {
  const row = (what: string, body: unknown, messages: readonly string[], code = 20150, status = 400): Row => ({
    what,
    method: "PUT",
    path: "/zones/{zone}/bundle",
    body,
    status,
    code,
    messages,
    keeps: "/zones/{zone}/bundle",
  });
  const bundle = "Invalid bundle: ";
  const firewall = "http_request_firewall_custom";
  const policy = { name: "p", kind: "threshold", metric: "errors", window_minutes: 5, above: 10 };
  return [
    row("a body that is no object", [1], [`${bundle}body must be a JSON object`]),
    row("a section that is no section", { colour: 1 }, [`${bundle}colour is not a section of a bundle`]),
    row("a zone that is not the path's", { zone: "other.example" }, [
      `${bundle}zone must be ${ZONE} (the path's zone)`,
    ]),
    row("settings with a plan not in the list", { settings: { plan: "gold", origin: ORIGIN } }, [
      `${bundle}settings.plan must be one of free, pro, business, enterprise`,
    ]),
    row("settings whose origin is an API host", { settings: { plan: "business", origin: "http://localhost:8080" } }, [
      `${bundle}settings.origin must not be a host of API_HOSTS, on any port (docs/origin.md)`,
    ]),
    row("a phase that is no phase", { rulesets: { http_log: { rules: [] } } }, [
      `${bundle}rulesets.http_log is not a phase`,
    ]),
    row("rules that are no list", { rulesets: { [firewall]: { rules: 5 } } }, [
      `${bundle}rulesets.${firewall}.rules must be an array of rules`,
    ]),
    row("a field that is no field of a ruleset", { rulesets: { [firewall]: { rules: [], kind: "zone" } } }, [
      `${bundle}rulesets.${firewall}.kind is not a field of a bundle's ruleset (rules, name, description)`,
    ]),
    row(
      "a rule whose expression does not compile (the rulesets API's own validator and code)",
      { rulesets: { [firewall]: { rules: [{ expression: "http.request.uri.path eq", action: "block" }] } } },
      [
        `Bundle section rulesets.${firewall}: rules[0].expression: 1:25: expected a value after the operator, found the end of the expression`,
      ],
      20021,
    ),
    row("a page that is no page", { custom_pages: { "404_errors": { state: "default" } } }, [
      `${bundle}custom_pages.404_errors is not a custom page`,
    ]),
    row("a page whose state is not in the list", { custom_pages: { "500_errors": { state: "gone" } } }, [
      `${bundle}custom_pages.500_errors.state must be "customized" or "default"`,
    ]),
    row(
      "an asset whose hash is no SHA-256",
      { custom_assets: { a: { url: "https://x.example/a.html", sha256: "ab" } } },
      [`${bundle}custom_assets.a.sha256 must be 64 lower-case hex characters (a SHA-256)`],
    ),
    row(
      "an access rule whose mode is not in the list",
      { access_rules: { rules: [{ mode: "allow", configuration: { target: "ip", value: "192.0.2.1" } }] } },
      [`${bundle}access_rules.rules[0].mode must be one of: block`],
    ),
    row("URL normalisation of an unknown type", { url_normalization: { type: "strict", scope: "incoming" } }, [
      `${bundle}url_normalization.type must be one of cloudflare, rfc3986`,
    ]),
    row(
      "telemetry whose endpoint is not https",
      { telemetry: { otlp: { ...OTLP_OK, endpoint: "ftp://otlp.example.net/v1/traces" } } },
      [`${bundle}telemetry.otlp.endpoint must use https`],
    ),
    row(
      "a telemetry header shown as set with no value stored",
      { telemetry: { otlp: { ...OTLP_OK, headers: { "x-api-key": "set" } } } },
      [
        `${bundle}telemetry.otlp.headers.x-api-key is "set" but no value is stored for it: send the value once with PUT /zones/{zone}/telemetry`,
      ],
    ),
    row("an alert policy without a webhook", { alert_policies: { p: policy } }, [
      `${bundle}alert_policies.p.webhook must be {"url": "https://…"}`,
    ]),
    row(
      "an alert policy whose webhook is no https URL",
      { alert_policies: { p: { ...policy, webhook: { url: "http://hooks.example.com/a" } } } },
      [
        `${bundle}alert_policies.p.webhook.url must use https (http only for a loopback receiver under \`wrangler dev\`)`,
      ],
    ),
    row("a tag key with a space", { tags: { "bad key": "x" } }, [
      `${bundle}tags.bad key is not a valid tag key: letters of any script (with combining marks), decimal digits, '_', '.' and '-', at most 256 code points`,
    ]),
    row("tags for a zone in no account", { tags: { env: "production" } }, [
      `${bundle}tags cannot be set: the zone belongs to no account, so it has no tags (docs/tags-api.md)`,
    ]),
    row(
      "two bad sections at once: every issue, by section and field",
      { settings: { plan: "gold", origin: ORIGIN }, url_normalization: { type: "strict", scope: "incoming" } },
      [
        `${bundle}settings.plan must be one of free, pro, business, enterprise`,
        `${bundle}url_normalization.type must be one of cloudflare, rfc3986`,
      ],
    ),
  ];
}

let rulesetId = "";

beforeAll(async () => {
  await apiOk("PUT", `/zones/${ZONE}`, { plan: "business", origin: ORIGIN });
  const rules = [RULE_A, RULE_B].map((id) => ({ id, expression: "true", action: "block" }));
  const firewall = await apiOk("PUT", `/zones/${ZONE}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
    rules,
  });
  rulesetId = (firewall.result as { id: string }).id;
});

/** The ETag a GET of `path` answers (it must answer one). */
async function etag(path: string): Promise<string> {
  const answer = await api("GET", path.replace("{zone}", ZONE));
  expect(answer.status).toBe(200);
  const tag = answer.headers.get("ETag");
  expect(tag).toMatch(/^"/);
  return tag ?? "";
}

describe("bad bodies name the field and the rule", () => {
  it.each(ROWS.map((row) => [`${row.method} ${row.path}: ${row.what}`, row] as const))("%s", async (_, row) => {
    const kept = row.keeps === undefined ? undefined : await etag(row.keeps);
    const answer = await api(row.method, row.path.replace("{zone}", ZONE).replace("{ruleset}", rulesetId), row.body);
    expect(answer.status).toBe(row.status);
    expect(answer.body.errors).toEqual(row.messages.map((message) => ({ code: row.code, message })));
    if (row.keeps !== undefined) expect(await etag(row.keeps)).toBe(kept);
  });
});
