/**
 * A real `wrangler dev` of this project for a test: the code linked into a scratch directory with its own
 * `.dev.vars` and local state, on free 127.0.0.1 ports, in its own process group (`detached`), killed whole by `stop`
 * (SIGKILL to the group: wrangler and workerd never outlive the test) and at the latest when `limitMs` passes.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../../servers/ports.ts";

const root = resolve(import.meta.dirname, "../../..");
const LINKED = ["node_modules", "src", "fixtures", "wrangler.toml", "package.json", "tsconfig.json"];

export interface WranglerDev {
  readonly base: string;
  readonly port: number;
  /** Everything wrangler wrote so far. */
  readonly output: () => string;
  readonly stop: () => void;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // nothing left of it
  }
}

/** Starts `wrangler dev` with these `.dev.vars` lines and waits until it serves the Worker (or fails). */
export async function startWranglerDev(devVars: Record<string, string>, limitMs = 300_000): Promise<WranglerDev> {
  const dir = mkdtempSync(join(tmpdir(), "edge-wrangler-"));
  for (const name of LINKED) symlinkSync(join(root, name), join(dir, name));
  writeFileSync(
    join(dir, ".dev.vars"),
    Object.entries(devVars)
      .map(([k, v]) => `${k}='${v}'`)
      .join("\n") + "\n",
  );
  const [port, inspector] = [await freePort(), await freePort()];
  const args = ["node_modules/wrangler/bin/wrangler.js", "dev", "-c", "wrangler.toml", "--ip", "127.0.0.1"];
  args.push("--port", String(port), "--inspector-port", String(inspector), "--persist-to", join(dir, "state"));
  const child = spawn(process.execPath, args, {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const limit = setTimeout(() => killGroup(child.pid), limitMs);
  const stop = (): void => {
    clearTimeout(limit);
    killGroup(child.pid);
    rmSync(dir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`wrangler dev did not start:\n${output}`);
    }
    const ready = await fetch(`${base}/openapi.json`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((done) => setTimeout(done, 250));
  }
  return { base, port, output: () => output, stop };
}
