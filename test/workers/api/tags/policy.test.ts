/** The account's tag policy (docs/tags-api.md "Policies"): each rule in both modes, listings, compliance. */
import { describe, expect, it } from "vitest";
import { call, errorCode, newAccount, put, worker, type Resource } from "../../support/tags";

const setPolicy = (account: string, body: unknown) =>
  call<Record<string, unknown>>("PUT", `/accounts/${account}/tags/policy`, { body });
const patch = (account: string, body: unknown) => call<Resource>("PATCH", `/accounts/${account}/tags`, { body });
const codes = (res: { body: { messages: unknown[] } | null }) =>
  (res.body?.messages ?? []).map((m) => (m as { code: number }).code);

const RULES = {
  allowed_keys: ["env", "team", "Owner", "cost-center"],
  allowed_values: { env: { values: ["prod", "staging"] }, team: { pattern: "team-[a-z]+" } },
  required_keys: { worker: ["team"] },
  key_case: "lower",
};

/** One write per rule, each breaking exactly that rule. */
const BREAKS: [rule: string, tags: Record<string, string>, code: number][] = [
  ["allowed_keys", { team: "team-a", color: "red" }, 1023],
  ["allowed_values (list)", { team: "team-a", env: "dev" }, 1024],
  ["allowed_values (pattern, whole value)", { team: "team-a1" }, 1024],
  ["required_keys", { env: "prod" }, 1025],
  ["key_case", { team: "team-a", Owner: "x" }, 1026],
];

describe("policy modes", () => {
  it.each(BREAKS)(
    "enforced: a write breaking %s is refused with its code, and changes nothing",
    async (_r, tags, code) => {
      const a = newAccount();
      expect((await setPolicy(a, { ...RULES, mode: "enforced" })).status).toBe(200);
      for (const res of [await put(a, worker("w", tags)), await patch(a, worker("w", tags))]) {
        expect(res.status).toBe(400);
        expect(errorCode(res)).toBe(code);
      }
      const bulk = await call("POST", `/accounts/${a}/tags/bulk`, {
        body: {
          edits: [
            { op: "replace", resource_type: "worker", resource_id: "ok", tags: { team: "team-a" } },
            { op: "replace", resource_type: "worker", resource_id: "w", tags },
          ],
        },
      });
      expect(errorCode(bulk)).toBe(code);
      expect(bulk.body?.errors[0]?.message).toMatch(/^edits\[1\]/);
      expect((await call("GET", `/accounts/${a}/tags/resources`)).body?.result).toEqual([]);
      // A compliant write passes.
      expect((await put(a, worker("w", { team: "team-a", env: "prod" }))).status).toBe(200);
    },
  );

  it.each(BREAKS)("advisory: a write breaking %s passes and reports it in messages", async (_r, tags, code) => {
    const a = newAccount();
    await setPolicy(a, { ...RULES, mode: "advisory" });
    const res = await put(a, worker("w", tags));
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual([code]);
    expect(res.body?.result.tags).toEqual(tags);
    const compliance = await call<{ id: string; violations: { code: number; rule: string }[] }[]>(
      "GET",
      `/accounts/${a}/tags/compliance`,
    );
    expect(compliance.body?.result.map((r) => [r.id, r.violations.map((v) => v.code)])).toEqual([["w", [code]]]);
  });

  it("holds only the keys a write sets to the key rules; required keys on the whole set", async () => {
    const a = newAccount();
    await put(a, worker("w", { color: "red", team: "team-a" })); // before any policy
    await setPolicy(a, { ...RULES, mode: "enforced" });
    // The policy rewrote nothing.
    expect(
      (await call<Resource>("GET", `/accounts/${a}/tags?resource_type=worker&resource_id=w`)).body?.result.tags,
    ).toEqual({
      color: "red",
      team: "team-a",
    });
    // An unrelated compliant change passes although `color` breaks allowed_keys…
    expect((await patch(a, worker("w", { env: "prod" }))).status).toBe(200);
    // …but removing a required key is refused.
    expect(errorCode(await patch(a, { resource_type: "worker", resource_id: "w", tags: { team: null } }))).toBe(1025);
    // Removing every tag is always allowed: the resource leaves the tagged resources.
    expect(
      (await call("DELETE", `/accounts/${a}/tags`, { body: { resource_type: "worker", resource_id: "w" } })).status,
    ).toBe(204);
  });
});

describe("policy endpoints", () => {
  it("stores, shows and removes the policy; lists required keys per resource type", async () => {
    const a = newAccount();
    expect((await call("GET", `/accounts/${a}/tags/policy`)).body?.result).toEqual({
      mode: "advisory",
      key_case: "any",
      allowed_keys: null,
      allowed_values: {},
      required_keys: {},
    });
    const set = await setPolicy(a, { mode: "enforced", required_keys: { worker: ["team", "env"], queue: ["team"] } });
    expect(set.body?.result).toMatchObject({ mode: "enforced", required_keys: { worker: ["team", "env"] } });
    const required = await call("GET", `/accounts/${a}/tags/policy/required_keys`);
    expect(required.body?.result).toEqual([
      { resource_type: "queue", keys: ["team"], mode: "enforced" },
      { resource_type: "worker", keys: ["team", "env"], mode: "enforced" },
    ]);
    expect((await call("GET", `/accounts/${a}/tags/policy/required_keys?type=queue`)).body?.result).toEqual([
      { resource_type: "queue", keys: ["team"], mode: "enforced" },
    ]);
    expect(errorCode(await call("GET", `/accounts/${a}/tags/policy/required_keys?type=nope`))).toBe(1006);
    expect((await call("DELETE", `/accounts/${a}/tags/policy`)).status).toBe(204);
    expect((await put(a, worker("w", { any: "thing" }))).status).toBe(200);
  });

  it.each([
    [[], "the body must be a JSON object"],
    [{ mode: "strict" }, "mode"],
    [{ key_case: "title" }, "key_case"],
    [{ allowed_keys: ["bad key"] }, "allowed_keys"],
    [{ allowed_keys: ["k".repeat(257)] }, "allowed_keys"],
    [{ allowed_values: { env: { values: ["v".repeat(1025)] } } }, "allowed_values.env.values"],
    [{ allowed_values: { env: { pattern: "(a" } } }, "invalid RE2 pattern"],
    [{ allowed_values: { env: { pattern: "(?=a)" } } }, "invalid RE2 pattern"],
    [{ allowed_values: { env: { pattern: "a{1000}{1000}" } } }, "pattern"],
    [{ allowed_values: { env: { pattern: "x".repeat(257) } } }, "at most 256"],
    [{ allowed_values: { env: { values: [], pattern: "a" } } }, "allowed_values.env"],
    [{ required_keys: { nope: ["k"] } }, "unknown resource type"],
    [{ extra: 1 }, "unknown field"],
  ])("refuses an invalid policy %j with 1022 naming the field", async (body, why) => {
    const res = await setPolicy(newAccount(), body);
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe(1022);
    expect(res.body?.errors[0]?.message).toContain(why);
  });

  it("pages the compliance listing (100 per page, keyset cursor) and lists only breaking resources", async () => {
    const a = newAccount();
    await setPolicy(a, { mode: "advisory", required_keys: { worker: ["team"] } });
    const bulk = (from: number) =>
      call("POST", `/accounts/${a}/tags/bulk`, {
        body: {
          edits: Array.from({ length: 100 }, (_, i) => ({
            op: "replace",
            resource_type: "worker",
            resource_id: `w${String(from + i).padStart(3, "0")}`,
            tags: (from + i) % 2 === 0 ? { env: "prod" } : { team: "t" },
          })),
        },
      });
    await bulk(0);
    await bulk(100);
    await bulk(200);
    const first = await call<{ id: string }[]>("GET", `/accounts/${a}/tags/compliance`);
    expect(first.body?.result.length).toBe(100);
    const cursor = first.body?.result_info?.cursor ?? "";
    const second = await call<{ id: string }[]>(
      "GET",
      `/accounts/${a}/tags/compliance?cursor=${encodeURIComponent(cursor)}`,
    );
    expect(second.body?.result.length).toBe(50);
    expect(second.body?.result_info?.cursor).toBeNull();
    const ids = [...(first.body?.result ?? []), ...(second.body?.result ?? [])].map((r) => r.id);
    expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => `w${String(i * 2).padStart(3, "0")}`));
    expect(
      errorCode(await call("GET", `/accounts/${a}/tags/compliance?type=queue&cursor=${encodeURIComponent(cursor)}`)),
    ).toBe(1017);
  });
});
