/**
 * `npm run zone` (scripts/zone.ts, docs/config-as-code.md "The command") against a real `wrangler dev`: pull writes
 * the bundle (YAML or JSON, no secret), drift exits 0 while the zone matches and 2 once the file differs, plan
 * prints the change, apply makes the zone match, and a refusal exits 1 with the API's message.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startWranglerDev, type WranglerDev } from "./support/wrangler-dev";

const ADMIN = "zone-command-admin";
const ZONE = "shop.test";
const SECRET = "telemetry-secret-value";
const root = resolve(import.meta.dirname, "../..");

let dev: WranglerDev;
let dir: string;

async function api(method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${dev.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** The command as `npm run zone --` runs it (tsx), with the token in its environment. */
function zone(args: string[], token = ADMIN): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "scripts/zone.ts"), ...args, "--api", dev.base],
    { encoding: "utf8", env: { ...process.env, EDGE_ERRORS_TOKEN: token }, timeout: 60_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  dev = await startWranglerDev({ ADMIN_TOKEN: ADMIN });
  dir = mkdtempSync(join(tmpdir(), "zone-command-"));
  await api("PUT", `/zones/${ZONE}`, { plan: "pro", origin: "http://127.0.0.2:9" });
  await api("PUT", `/zones/${ZONE}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
    rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block", description: "admin" }],
  });
  await api("PUT", `/zones/${ZONE}/telemetry`, {
    otlp: { endpoint: "https://otlp.example.net/v1/traces", protocol: "http/json", headers: { "x-api-key": SECRET } },
  });
}, 300_000);

afterAll(() => {
  dev?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("npm run zone", () => {
  it("pull, drift 0, edit, drift 2, plan, apply, drift 0; refusals exit 1", () => {
    const yamlFile = join(dir, "shop.yaml");
    const pulled = zone(["pull", ZONE, yamlFile]);
    expect(pulled.status, pulled.stderr).toBe(0);
    const text = readFileSync(yamlFile, "utf8");
    expect(text).not.toContain(SECRET);
    const bundle = parse(text) as { zone: string; rulesets: Record<string, { rules: unknown[] }> };
    expect(bundle.zone).toBe(ZONE);

    const same = zone(["drift", yamlFile]);
    expect(same.status, same.stderr).toBe(0);
    expect(same.stdout).toContain("No changes");

    const rules = bundle.rulesets.http_request_firewall_custom?.rules ?? [];
    bundle.rulesets.http_request_firewall_custom = {
      rules: [{ expression: 'http.request.uri.path eq "/wp-login.php"', action: "block" }, ...rules],
    };
    writeFileSync(yamlFile, stringify(bundle));
    const drifted = zone(["drift", yamlFile]);
    expect(drifted.status, drifted.stderr).toBe(2);
    expect(drifted.stdout).toContain("rulesets.http_request_firewall_custom\n  + create rule (new) at 0");
    expect(drifted.stdout).toContain("1 change(s).");

    const planned = zone(["plan", yamlFile]);
    expect(planned.status, planned.stderr).toBe(0);
    const applied = zone(["apply", yamlFile]);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Applied.");

    // JSON too: pulled after the apply, it matches.
    const jsonFile = join(dir, "shop.json");
    expect(zone(["pull", ZONE, jsonFile]).status).toBe(0);
    const matched = zone(["drift", jsonFile]);
    expect(matched.status, matched.stderr).toBe(0);

    // A refusal (a rule that does not compile) exits 1 with the API's message; a bad token too.
    const bad = JSON.parse(readFileSync(jsonFile, "utf8")) as typeof bundle;
    bad.rulesets.http_request_firewall_custom = {
      rules: [{ expression: "http.request.uri.path eq", action: "block" }],
    };
    writeFileSync(jsonFile, JSON.stringify(bad));
    const refused = zone(["apply", jsonFile]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("Bundle section rulesets.http_request_firewall_custom: rules[0].expression");
    expect(zone(["drift", yamlFile], "not-the-token").status).toBe(1);
    expect(zone(["unknown"]).status).toBe(1);
  }, 300_000);
});
