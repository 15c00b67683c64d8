/** Tagging API authorisation (docs/configuration.md): tags:read / tags:write, scoped by account. */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import handler from "../../../../src/index";
import { tokenDigestHex } from "../../../../src/api/kit/auth";
import { newAccount, put, worker, type Envelope } from "../../support/tags";

const alpha = newAccount();
const beta = newAccount();
let API_TOKENS = "";

beforeAll(async () => {
  API_TOKENS = JSON.stringify([
    { name: "alpha-read", sha256: await tokenDigestHex("alpha-read"), accounts: [alpha], permissions: ["tags:read"] },
    {
      name: "alpha-write",
      sha256: await tokenDigestHex("alpha-write"),
      accounts: [alpha],
      permissions: ["tags:read", "tags:write"],
    },
    { name: "all-read", sha256: await tokenDigestHex("all-read"), accounts: ["*"], permissions: ["tags:read"] },
    {
      name: "zones",
      sha256: await tokenDigestHex("zones"),
      accounts: ["*"],
      zones: ["*"],
      permissions: ["zones:read", "zones:write"],
    },
  ]);
  await put(alpha, worker("a", { owner: "alpha" }));
  await put(beta, worker("b", { owner: "beta" }));
});

async function as(
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Envelope }> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const res = await handler.fetch(
    new Request(`http://localhost${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { ...env, API_TOKENS },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json<Envelope>() };
}

describe("scoped tokens", () => {
  const read = (account: string) => `/accounts/${account}/tags/resources`;
  it.each([
    [null, "GET", read(alpha), 401, 10000],
    ["wrong-token", "GET", read(alpha), 401, 10000],
    ["alpha-read", "GET", read(alpha), 200, 0],
    ["alpha-read", "GET", read(beta), 403, 10001], // a token for one account cannot read another
    ["alpha-read", "GET", `/accounts/${beta}/tags/keys`, 403, 10001],
    ["alpha-read", "GET", `/accounts/${beta}/tags?resource_type=worker&resource_id=b`, 403, 10001],
    ["alpha-read", "PUT", `/accounts/${alpha}/tags`, 403, 10001],
    ["alpha-write", "PUT", `/accounts/${alpha}/tags`, 200, 0],
    ["alpha-write", "PUT", `/accounts/${beta}/tags`, 403, 10001],
    ["alpha-write", "DELETE", `/accounts/${beta}/tags`, 403, 10001],
    ["all-read", "GET", read(beta), 200, 0],
    ["all-read", "DELETE", `/accounts/${beta}/tags`, 403, 10001],
    ["zones", "GET", read(alpha), 403, 10001],
  ])("%s %s %s → %i", async (token, method, path, status, code) => {
    const body = method === "GET" ? undefined : { resource_type: "worker", resource_id: "x", tags: { k: "v" } };
    const res = await as(token, method, path, body);
    expect(res.status).toBe(status);
    expect(res.body.errors[0]?.code ?? 0).toBe(code);
  });

  it("shows each account only its own data, even with a token for every account", async () => {
    const a = await as("all-read", "GET", `/accounts/${alpha}/tags/values/owner`);
    const b = await as("all-read", "GET", `/accounts/${beta}/tags/values/owner`);
    expect(a.body.result).toEqual(["alpha"]);
    expect(b.body.result).toEqual(["beta"]);
  });
});
