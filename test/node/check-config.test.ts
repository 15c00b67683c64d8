/**
 * `npm run check-config` (scripts/check-config.ts) as a real process: the Worker's own parser over what wrangler
 * reads; `--deploy` refuses the placeholder KV id before anything goes online.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

function checkConfig(args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/check-config.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("check-config", () => {
  it("--deploy refuses the placeholder KV namespace id (offline: the secrets step is never reached)", () => {
    const run = checkConfig(["--deploy", "--secrets"]);
    expect(run.status).toBe(1);
    expect(run.output).toContain("kv_namespaces CONFIG: id is the placeholder 00000000000000000000000000000001");
    expect(run.output).not.toContain("could not list the Worker's secrets");
  });

  it("every invalid var of the quiet-output work (2026-11-23) is one line naming the var, the problem and the value used", () => {
    const run = checkConfig([
      "--deploy",
      "--var",
      "TAG_LIMIT:lots",
      "--var",
      "ERROR_LOG_COALESCE_MS:-5",
      "--var",
      "SERVICE_PREFIX:cdn-cgi",
      "--var",
      "ERROR_DOCS_BASE:ht tp://bad base",
    ]);
    expect(run.status).toBe(1);
    const lines = run.output.split("\n").filter((l) => l.startsWith("[check-config] invalid: "));
    expect(lines).toEqual([
      '[check-config] invalid: SERVICE_PREFIX = "cdn-cgi": must start with /; the Worker would use /cdn-cgi',
      expect.stringMatching(
        /^\[check-config\] invalid: ERROR_DOCS_BASE = "ht tp:\/\/bad base": must be a URI reference .*; the Worker would use \/cdn-cgi\/errors on the requested zone$/,
      ),
      '[check-config] invalid: TAG_LIMIT = "lots": must be a whole number from 1 to 999999999; the Worker would use 10000',
      '[check-config] invalid: ERROR_LOG_COALESCE_MS = "-5": must be whole milliseconds from 0 to 1000; the Worker would use 50',
      expect.stringContaining("kv_namespaces CONFIG: id is the placeholder"),
    ]);
  });

  it("--deploy refuses WEBHOOK_LOOPBACK (alert webhooks to loopback: wrangler dev and tests only)", () => {
    const run = checkConfig(["--deploy", "--var", "WEBHOOK_LOOPBACK:allow"]);
    expect(run.status).toBe(1);
    expect(run.output).toContain(
      "[check-config] invalid: WEBHOOK_LOOPBACK lets alert webhooks reach loopback: for `npm run dev` and tests only, remove it from [vars]",
    );
    const bad = checkConfig(["--var", "WEBHOOK_LOOPBACK:yes"]);
    expect(bad.output).toContain(
      '[check-config] invalid: WEBHOOK_LOOPBACK = "yes": must be "allow" or unset; the Worker would use unset: loopback webhook targets are refused',
    );
  });
});
