/**
 * Rule-level edits of the Rulesets API (docs/configuration.md; docs/rulesets-api.md) through the real Worker, zone writer and
 * KV: concurrent adds lose nothing, `dry_run` writes nothing (read back and through traffic), and hostile input is
 * refused precisely with nothing stored (the ruleset, its versions and the KV document read back unchanged).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { putZone, uniqueZone } from "../../support/origin";
import { api as apiCall } from "../../support/envelope";

interface Rule {
  id: string;
  version: string;
  expression: string;
}
interface Ruleset {
  id: string;
  version: string;
  rules: Rule[];
}
interface Summary {
  id: string;
  version: string;
}

/** The shared `api`, its result a ruleset unless told otherwise (`null` on a failure). */
const api = <T = Ruleset>(method: string, path: string, body?: unknown) => apiCall<T | null>(method, path, body);

const serve = (expression: string, content = '{"error":true}') => ({
  expression,
  action: "serve_error",
  action_parameters: { content, content_type: "application/json" },
});

/** A zone with a custom-errors ruleset of `n` rules (`/r0`, `/r1`, …); plan enterprise (300 rules). */
async function withRuleset(n: number, plan = "enterprise"): Promise<{ zone: string; ruleset: Ruleset }> {
  const zone = uniqueZone("rule-edits");
  await putZone(zone, { plan, origin: "http://o.example" });
  const rules = Array.from({ length: n }, (_, i) => serve(`http.request.uri.path eq "/r${i}"`));
  const put = await api("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
  expect(put.status).toBe(200);
  return { zone, ruleset: put.body.result! };
}

/** Everything a write could change: the ruleset, its versions, the KV document. */
async function snapshot(zone: string, id: string): Promise<unknown> {
  return {
    ruleset: (await api("GET", `/zones/${zone}/rulesets/${id}`)).body.result,
    versions: (await api<Summary[]>("GET", `/zones/${zone}/rulesets/${id}/versions`)).body.result,
    list: (await api<Summary[]>("GET", `/zones/${zone}/rulesets`)).body.result,
    kv: await env.CONFIG.get(`zone:${zone}`),
  };
}

describe("concurrent rule-level edits lose nothing (docs/configuration.md)", () => {
  it("20 parallel adds land 20 rules with 20 distinct versions", async () => {
    const { zone, ruleset } = await withRuleset(0);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api("POST", `/zones/${zone}/rulesets/${ruleset.id}/rules`, serve(`http.request.uri.path eq "/p${i}"`)),
      ),
    );
    const elapsed = performance.now() - started;
    console.log(`20 parallel rule adds: ${elapsed.toFixed(0)} ms`);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const versions = results.map((r) => r.body.result!.version);
    expect(new Set(versions).size).toBe(20);
    expect(versions.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // Each answer holds exactly the rules added before it: the writer applied them one after another.
    for (const r of results) expect(r.body.result!.rules).toHaveLength(Number(r.body.result!.version) - 1);
    const final = (await api("GET", `/zones/${zone}/rulesets/${ruleset.id}`)).body.result!;
    expect(final.version).toBe("21");
    expect(final.rules.map((r) => r.expression).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `http.request.uri.path eq "/p${i}"`).sort(),
    );
    const listed = (await api<Summary[]>("GET", `/zones/${zone}/rulesets/${ruleset.id}/versions`)).body.result!;
    expect(listed.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => String(i + 1)));
  });

  it("parallel edits, moves and deletes of different rules all land", async () => {
    const { zone, ruleset } = await withRuleset(10);
    const [r0, r1, r2, r3] = ruleset.rules;
    const base = `/zones/${zone}/rulesets/${ruleset.id}/rules`;
    const results = await Promise.all([
      api("PATCH", `${base}/${r0!.id}`, serve('http.request.uri.path eq "/edited"')),
      api("PATCH", `${base}/${r1!.id}`, { position: { after: "" } }),
      api("DELETE", `${base}/${r2!.id}`),
      api("DELETE", `${base}/${r3!.id}`),
      api("POST", base, { ...serve('http.request.uri.path eq "/new"'), position: { before: "" } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const final = (await api("GET", `/zones/${zone}/rulesets/${ruleset.id}`)).body.result!;
    expect(final.version).toBe("6");
    expect(final.rules).toHaveLength(9);
    expect(final.rules.map((r) => r.id)).not.toContain(r2!.id);
    expect(final.rules.map((r) => r.id)).not.toContain(r3!.id);
    expect(final.rules.at(-1)?.id).toBe(r1!.id);
    expect(final.rules[0]?.expression).toBe('http.request.uri.path eq "/new"');
    expect(final.rules.find((r) => r.id === r0!.id)).toMatchObject({
      version: "2",
      expression: 'http.request.uri.path eq "/edited"',
    });
  });
});

describe("dry_run writes nothing (checked through reads and traffic)", () => {
  it("a rule added, a ruleset replaced or deleted with dry_run=true is not stored and not served", async () => {
    const { zone, ruleset } = await withRuleset(0);
    const before = await snapshot(zone, ruleset.id);
    const catchAll = serve("true", '{"served":"by the rule"}');
    const writes: [string, string, unknown][] = [
      ["POST", `/zones/${zone}/rulesets/${ruleset.id}/rules?dry_run=true`, catchAll],
      ["PUT", `/zones/${zone}/rulesets/${ruleset.id}?dry_run=true`, { rules: [catchAll] }],
      ["PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint?dry_run=true`, { rules: [catchAll] }],
      ["DELETE", `/zones/${zone}/rulesets/${ruleset.id}?dry_run=true`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await api(method, path, body);
      expect([200, 204], `${method} ${path}`).toContain(res.status);
      if (res.status === 204) expect(res.text, `${method} ${path}`).toBe("");
      else expect(res.body.result, `${method} ${path}`).toBeNull();
    }
    expect(await snapshot(zone, ruleset.id)).toEqual(before);
    const traffic = async () => {
      const res = await exports.default.fetch(`http://${zone}/cdn-cgi/error/522`, {
        headers: { Accept: "application/json" },
      });
      return (await res.json<Record<string, unknown>>()).served;
    };
    expect(await traffic()).toBeUndefined();
    // The same write without dry_run is served: the check above can fail.
    expect((await api("POST", `/zones/${zone}/rulesets/${ruleset.id}/rules`, catchAll)).status).toBe(200);
    expect(await traffic()).toBe("by the rule");
  });

  it("a dry run of a rule or version delete keeps them", async () => {
    const { zone, ruleset } = await withRuleset(2);
    await api("POST", `/zones/${zone}/rulesets/${ruleset.id}/rules`, serve("true"));
    const before = await snapshot(zone, ruleset.id);
    const rule = ruleset.rules[0]!.id;
    expect((await api("DELETE", `/zones/${zone}/rulesets/${ruleset.id}/rules/${rule}?dry_run=true`)).status).toBe(200);
    expect((await api("DELETE", `/zones/${zone}/rulesets/${ruleset.id}/versions/1?dry_run=true`)).status).toBe(204);
    expect(await snapshot(zone, ruleset.id)).toEqual(before);
  });
});

describe("hostile input: refused precisely, nothing stored", () => {
  const cases: [string, (z: string, r: Ruleset) => [string, string, unknown], number, number, RegExp][] = [
    [
      "a position before an unknown rule",
      (z, r) => [
        "POST",
        `/zones/${z}/rulesets/${r.id}/rules`,
        { ...serve("true"), position: { before: "f".repeat(32) } },
      ],
      400,
      20021,
      /^position\.before: names no rule of this ruleset: "f{32}"$/,
    ],
    [
      "a position after an unknown rule (edit)",
      (z, r) => ["PATCH", `/zones/${z}/rulesets/${r.id}/rules/${r.rules[0]!.id}`, { position: { after: "nope" } }],
      400,
      20021,
      /^position\.after: names no rule of this ruleset: "nope"$/,
    ],
    [
      "before and after together",
      (z, r) => [
        "POST",
        `/zones/${z}/rulesets/${r.id}/rules`,
        { ...serve("true"), position: { before: r.rules[0]!.id, after: r.rules[1]!.id } },
      ],
      400,
      20021,
      /^position: must have exactly one of before, after or index, not before and after$/,
    ],
    [
      "index 0",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, { ...serve("true"), position: { index: 0 } }],
      400,
      20021,
      /^position\.index: must be from 1 to 4 /,
    ],
    [
      "an index past the end",
      (z, r) => ["PATCH", `/zones/${z}/rulesets/${r.id}/rules/${r.rules[0]!.id}`, { position: { index: 4 } }],
      400,
      20021,
      /^position\.index: must be from 1 to 3 /,
    ],
    [
      "a fractional index",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, { ...serve("true"), position: { index: 1.5 } }],
      400,
      20021,
      /^position\.index: must be an integer/,
    ],
    [
      "a rule placed relative to itself",
      (z, r) => [
        "PATCH",
        `/zones/${z}/rulesets/${r.id}/rules/${r.rules[1]!.id}`,
        { position: { before: r.rules[1]!.id } },
      ],
      400,
      20021,
      /^position\.before: must name another rule/,
    ],
    [
      "an unknown position field",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, { ...serve("true"), position: { top: true } }],
      400,
      20021,
      /^position\.top: is not a position field$/,
    ],
    [
      "an invalid expression in an added rule (named by the request's own field)",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, serve("http.host eq")],
      400,
      20021,
      /^expression: 1:\d+: /,
    ],
    [
      "an added rule reusing an existing id",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, { ...serve("true"), id: r.rules[0]!.id }],
      400,
      20021,
      /^id: is used by another rule/,
    ],
    [
      "an edit changing the rule's id",
      (z, r) => [
        "PATCH",
        `/zones/${z}/rulesets/${r.id}/rules/${r.rules[0]!.id}`,
        { ...serve("true"), id: r.rules[1]!.id },
      ],
      400,
      20021,
      /^id: must be the rule id of the path/,
    ],
    [
      "an unknown rule id",
      (z, r) => ["PATCH", `/zones/${z}/rulesets/${r.id}/rules/${"0".repeat(32)}`, serve("true")],
      404,
      20041,
      /^No rule "0{32}" in ruleset [0-9a-f]{32}; nothing was changed$/,
    ],
    [
      "an unknown rule id (delete)",
      (z, r) => ["DELETE", `/zones/${z}/rulesets/${r.id}/rules/zzz`, undefined],
      404,
      20041,
      /^No rule "zzz"/,
    ],
    [
      "an unknown ruleset id",
      (z) => ["POST", `/zones/${z}/rulesets/${"a".repeat(32)}/rules`, serve("true")],
      404,
      20040,
      /^No ruleset "a{32}" in zone /,
    ],
    [
      "a malformed ruleset id",
      (z) => ["PUT", `/zones/${z}/rulesets/..%2F..%2Fsettings`, { rules: [] }],
      404,
      20040,
      /^No ruleset /,
    ],
    [
      "deleting the current version",
      (z, r) => ["DELETE", `/zones/${z}/rulesets/${r.id}/versions/${r.version}`, undefined],
      400,
      20043,
      /^Version 1 is the current version of ruleset [0-9a-f]{32} and cannot be deleted/,
    ],
    [
      "a version that does not exist",
      (z, r) => ["DELETE", `/zones/${z}/rulesets/${r.id}/versions/99`, undefined],
      404,
      20042,
      /^No version "99" of ruleset/,
    ],
    [
      "a version that is not a number",
      (z, r) => ["DELETE", `/zones/${z}/rulesets/${r.id}/versions/01`, undefined],
      404,
      20042,
      /^No version "01"/,
    ],
    [
      "a second ruleset for a phase that has one",
      (z) => ["POST", `/zones/${z}/rulesets`, { kind: "zone", name: "x", phase: "http_custom_errors", rules: [] }],
      400,
      20044,
      /^The zone already has its http_custom_errors ruleset \([0-9a-f]{32}\)/,
    ],
    [
      "a ruleset of another kind",
      (z) => ["POST", `/zones/${z}/rulesets`, { kind: "custom", name: "x", phase: "http_ratelimit" }],
      400,
      20021,
      /^kind: must be "zone"/,
    ],
    [
      "a ruleset of an unknown phase",
      (z) => ["POST", `/zones/${z}/rulesets`, { kind: "zone", name: "x", phase: "http_request_origin" }],
      400,
      20021,
      /^phase: must be one of /,
    ],
    [
      "an update naming another phase",
      (z, r) => ["PUT", `/zones/${z}/rulesets/${r.id}`, { phase: "http_ratelimit", rules: [] }],
      400,
      20021,
      /^phase: must be http_custom_errors/,
    ],
    [
      "a position that is not an object",
      (z, r) => ["POST", `/zones/${z}/rulesets/${r.id}/rules`, { ...serve("true"), position: 2 }],
      400,
      20021,
      /^position: must be an object/,
    ],
  ];

  for (const [name, request, status, code, message] of cases) {
    it(name, async () => {
      const { zone, ruleset } = await withRuleset(3);
      const before = await snapshot(zone, ruleset.id);
      const [method, path, body] = request(zone, ruleset);
      const res = await api(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.success).toBe(false);
      expect(res.body.errors[0]?.code).toBe(code);
      expect(res.body.errors[0]?.message).toMatch(message);
      expect(await snapshot(zone, ruleset.id)).toEqual(before);
    });
  }

  it("another zone's ruleset, rules and versions are unknown here (404), and stay as they were", async () => {
    const mine = await withRuleset(1);
    const theirs = await withRuleset(2);
    await api("POST", `/zones/${theirs.zone}/rulesets/${theirs.ruleset.id}/rules`, serve("true"));
    const before = await snapshot(theirs.zone, theirs.ruleset.id);
    const other = `/zones/${mine.zone}/rulesets/${theirs.ruleset.id}`;
    const requests: [string, string, unknown][] = [
      ["GET", other, undefined],
      ["PUT", other, { rules: [] }],
      ["DELETE", other, undefined],
      ["POST", `${other}/rules`, serve("true")],
      ["PATCH", `${other}/rules/${theirs.ruleset.rules[0]!.id}`, { position: { index: 1 } }],
      ["DELETE", `${other}/rules/${theirs.ruleset.rules[0]!.id}`, undefined],
      ["GET", `${other}/versions`, undefined],
      ["GET", `${other}/versions/1`, undefined],
      ["DELETE", `${other}/versions/1`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const res = await api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.errors[0]?.code, `${method} ${path}`).toBe(20040);
    }
    // A version of this zone's other ruleset is not a version of this one.
    const { zone, ruleset } = mine;
    const firewall = await api("POST", `/zones/${zone}/rulesets`, {
      kind: "zone",
      name: "fw",
      phase: "http_request_firewall_custom",
      rules: [{ expression: "true", action: "block" }],
    });
    await api("POST", `/zones/${zone}/rulesets/${firewall.body.result!.id}/rules`, {
      expression: "false",
      action: "block",
    });
    const cross = await api("GET", `/zones/${zone}/rulesets/${ruleset.id}/versions/2`);
    expect(cross.status).toBe(404);
    expect(cross.body.errors[0]?.code).toBe(20042);
    expect(await snapshot(theirs.zone, theirs.ruleset.id)).toEqual(before);
  });

  it("the plan's rule limit holds for rule-level adds, and nothing is stored past it", async () => {
    const { zone, ruleset } = await withRuleset(25, "pro");
    const before = await snapshot(zone, ruleset.id);
    const res = await api("POST", `/zones/${zone}/rulesets/${ruleset.id}/rules`, serve("true"));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({
      code: 20021,
      message: "rules: at most 25 rules in http_custom_errors on the pro plan (docs/custom-errors.md)",
    });
    expect(await snapshot(zone, ruleset.id)).toEqual(before);
  });

  it("a phase without a ruleset has no entry point versions (404); an unknown phase is 400", async () => {
    const zone = uniqueZone("rule-edits");
    await putZone(zone, { plan: "pro", origin: "http://o.example" });
    const none = await api("GET", `/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint/versions`);
    expect(none.status).toBe(404);
    expect(none.body.errors[0]?.code).toBe(20040);
    const bad = await api("GET", `/zones/${zone}/rulesets/phases/nope/entrypoint/versions/1`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]?.code).toBe(20022);
  });
});
