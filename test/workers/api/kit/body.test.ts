/**
 * JSON bodies nested deeper than `MAX_JSON_DEPTH` (src/api/kit/body.ts, docs/configuration.md "Zones"):
 * refused with 400, code 10004, by the one body reader, before `JSON.parse` and before anything reaches the
 * zone's writer, on every write route; a body at the limit goes on to the route's own validation; brackets inside
 * strings are not nesting.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { JSON_TOO_DEEP_CODE, MAX_JSON_DEPTH, nestsDeeperThan } from "../../../../src/api/kit/body";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { api } from "../../support/envelope";

const ACCOUNT = "d0b1e5a0c0ffee00d0b1e5a0c0ffee01";

/** `{"a":{"a":…1…}}`, `depth` objects deep (the body itself is depth 1). */
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{"a":1}${"}".repeat(depth - 1)}`;
/** An object whose `x` holds arrays nested so the body is `depth` deep. */
const deepInside = (depth: number): string => `{"x":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

let zone = "";
let rulesetId = "";
let ruleId = "";

beforeAll(async () => {
  zone = uniqueZone("deep-json");
  await putZone(zone, { plan: "enterprise", origin: loopback(ports.closed) });
  const made = await api(
    "PUT",
    `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
    JSON.stringify({ rules: [{ expression: 'http.host eq "x"', action: "block" }] }),
  );
  expect(made.status).toBe(200);
  const ruleset = made.body.result as { id: string; rules: { id: string }[] };
  rulesetId = ruleset.id;
  ruleId = ruleset.rules[0]?.id ?? "";
});

/**
 * Every write route: [method, path, the code of the refusal]. The tags API answers every unreadable body with its
 * own payload code (1002 for PUT, 1015 for DELETE: docs/tags-api.md), the message saying why.
 */
const routes = (): [string, string, number?][] => [
  ["PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`],
  ["PUT", `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`],
  ["POST", `/zones/${zone}/rulesets`],
  ["PUT", `/zones/${zone}/rulesets/${rulesetId}`],
  ["POST", `/zones/${zone}/rulesets/${rulesetId}/rules`],
  ["PATCH", `/zones/${zone}/rulesets/${rulesetId}/rules/${ruleId}`],
  ["PUT", `/zones/${zone}`],
  ["PUT", `/zones/${zone}/access_rules`],
  ["PUT", `/zones/${zone}/url_normalization`],
  ["PUT", `/zones/${zone}/custom_pages/500_errors`],
  ["POST", `/zones/${zone}/custom_pages/assets`],
  ["POST", `/zones/${zone}/preview`],
  ["PUT", `/accounts/${ACCOUNT}/tags`, 1002],
  ["DELETE", `/accounts/${ACCOUNT}/tags`, 1015],
];

async function zoneVersion(): Promise<number> {
  const got = await api("GET", `/zones/${zone}`);
  return (got.body.result as { version: number }).version;
}

describe("JSON nested deeper than the limit: 400, code 10004, before parsing", () => {
  it("a 3,000-deep body (objects, or arrays under a field) on every write route; nothing stored", async () => {
    const before = await zoneVersion();
    for (const [method, path, code = JSON_TOO_DEEP_CODE] of routes()) {
      for (const body of [deepObject(3000), deepInside(3000)]) {
        const { status, body: envelope } = await api(method, path, body);
        expect(status, `${method} ${path}: ${JSON.stringify(envelope)}`).toBe(400);
        expect(envelope.errors).toEqual([
          {
            code,
            message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) as string,
          },
        ]);
      }
    }
    expect(await zoneVersion()).toBe(before);
  });

  it("the limit is exact: 32 deep reaches the route's own validation, 33 deep does not", async () => {
    for (const [method, path, code = JSON_TOO_DEEP_CODE] of routes()) {
      const at = await api(method, path, deepInside(MAX_JSON_DEPTH));
      expect(at.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(at.body.errors[0]?.message, `${method} ${path}`).not.toContain("levels deep");
      const over = await api(method, path, deepInside(MAX_JSON_DEPTH + 1));
      expect(over.body.errors[0]?.code, `${method} ${path}`).toBe(code);
      expect(over.body.errors[0]?.message, `${method} ${path}`).toContain("levels deep");
    }
  });

  it("brackets inside strings are not nesting, escaped quotes included; a legitimate body still works", async () => {
    const description = `${"[{".repeat(100)} \\" ${"{".repeat(100)}`;
    const put = await api(
      "PUT",
      `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
      `{"rules":[{"expression":"http.host eq \\"${"[".repeat(40)}\\"","action":"block","description":"${description}"}]}`,
    );
    expect(put.status, put.text).toBe(200);
    expect(nestsDeeperThan(`["\\\\", ${"[".repeat(3)}]]]]`, 3)).toBe(true);
    expect(nestsDeeperThan(`["\\"[[[[", []]`, 2)).toBe(false);
    expect(nestsDeeperThan(`{}{}{}{}`, 1)).toBe(false);
  });
});
