/**
 * `npm run dev` tells the truth (issue 21): scripts/dev.mjs run as a real process, in a scratch directory that links
 * the project's code (so each scenario has its own .dev.vars and .wrangler/state), against real listeners on
 * 127.0.0.1 that take its ports. Non-default ports throughout, so a developer's own `npm run dev` is never touched.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const LINKED = ["scripts", "node_modules", "src", "fixtures", "wrangler.toml", "package.json", "tsconfig.json"];

interface Run {
  readonly code: number | null;
  readonly output: string;
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

/** A scratch project: the code linked, `.dev.vars` as given (absent when `null`). */
function project(devVars: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "edge-dev-"));
  for (const name of [...LINKED, ".dev.vars.example"]) symlinkSync(join(root, name), join(dir, name));
  if (devVars !== null) writeFileSync(join(dir, ".dev.vars"), devVars);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A listener on a free 127.0.0.1 port that counts every connection it gets (a request needs one). */
async function listener(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen({ host: "127.0.0.1", port: 0 }, done));
  cleanup.push(() => server.close());
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, connections: () => connections };
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen({ host: "127.0.0.1", port: 0 }, done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Runs dev.mjs to its end (bounded), its stdout and stderr interleaved. */
function runDev(cwd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["scripts/dev.mjs", ...args], {
      cwd,
      env: { ...process.env, PORT: "", ORIGIN_PORT: "", ...env },
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

describe("ports are checked before anything starts", () => {
  it("the Worker's port taken: one accurate message, exit 1, nothing sent to the listener", async () => {
    const taken = await listener();
    const origin = await freePort();
    const run = await runDev(project(null), ["--port", String(taken.port), "--origin-port", String(origin)]);
    expect(run.code).toBe(1);
    expect(run.output).toContain(`port ${taken.port} on 127.0.0.1 is already in use`);
    expect(run.output).toContain("npm run dev -- --port ");
    expect(run.output).not.toMatch(/seeded|Ready on|example origin on/);
    expect(taken.connections()).toBe(0);
  });

  it("the example origin's port taken (ORIGIN_PORT): names it and --origin-port, nothing sent to it", async () => {
    const taken = await listener();
    const port = await freePort();
    const run = await runDev(project(null), ["--port", String(port)], { ORIGIN_PORT: String(taken.port) });
    expect(run.code).toBe(1);
    expect(run.output).toContain(`port ${taken.port} on 127.0.0.1 (the example origin's) is already in use`);
    expect(run.output).toContain("--origin-port");
    expect(run.output).not.toMatch(/seeded|Ready on/);
    expect(taken.connections()).toBe(0);
  });

  it("PORT works like --port; a bad port value is refused by name", async () => {
    const taken = await listener();
    const byEnv = await runDev(project(null), [], { PORT: String(taken.port), ORIGIN_PORT: "0" });
    expect(byEnv.output).toContain(`port ${taken.port} on 127.0.0.1 is already in use`);
    const bad = await runDev(project(null), ["--port=80x"]);
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('--port / PORT must be a port number 1–65535: "80x"');
    expect(taken.connections()).toBe(0);
  });
});

describe(".dev.vars and the configuration", () => {
  it("a missing .dev.vars is created from the example; an empty ADMIN_TOKEN is said loudly", async () => {
    const taken = await listener();
    const created = await runDev(project(null), ["--port", String(taken.port), "--origin-port", "0"]);
    expect(created.output).toContain("created .dev.vars from .dev.vars.example");
    expect(created.output).not.toContain("has no ADMIN_TOKEN");
    const empty = await runDev(project("ADMIN_TOKEN=\n# API_TOKENS=[]\n"), ["--port", String(taken.port)]);
    expect(empty.output).toContain(".dev.vars has no ADMIN_TOKEN (or it is empty)");
    expect(empty.output).toContain("will NOT be seeded");
    expect(taken.connections()).toBe(0);
  });

  it("an invalid var stops it before anything starts, naming the var, its problem and the fallback", async () => {
    const [port, origin] = [await freePort(), await freePort()];
    const run = await runDev(project("ADMIN_TOKEN=t\nTAG_LIMIT=lots\n"), [
      "--port",
      String(port),
      "--origin-port",
      String(origin),
    ]);
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      '[check-config] invalid: TAG_LIMIT = "lots": must be a whole number from 1 to 999999999; the Worker would use 10000',
    );
    expect(run.output).toContain("not started");
    expect(run.output).not.toMatch(/example origin on|Ready on/);
  });
});

describe("a real start", () => {
  it("seeds only its own server, every write checked, then says so; the zone answers", async () => {
    const [port, origin] = [await freePort(), await freePort()];
    const dir = project(null);
    const child = spawn(
      process.execPath,
      ["scripts/dev.mjs", "--port", String(port), "--origin-port", String(origin)],
      {
        cwd: dir,
        env: { ...process.env, PORT: "", ORIGIN_PORT: "" },
        detached: true,
      },
    );
    cleanup.push(() => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 80_000;
    while (!/\[dev\] (seeded|could NOT)/.test(output) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).toContain(`[dev] seeded zone shop.example → http://127.0.0.1:${origin}`);
    // What the line says is true: the zone proxies to the example origin, and each seeded part answers.
    expect(await get(port, "/hello", "shop.example")).toEqual({ status: 200, body: "hello from the origin\n" });
    expect((await get(port, "/admin", "shop.example")).status).toBe(403); // the firewall rule (1020)
    expect(await get(port, "/drop", "shop.example", { Accept: "application/json" })).toMatchObject({ status: 503 });
    expect((await get(port, "/", "shop.example", { "CF-Connecting-IP": "198.51.100.7" })).status).toBe(403); // 1006
    expect((await get(port, "/drop", "shop.example")).body).toContain("<html"); // the 500-class page
    // The asset-based rule: the origin's 503 replaced by the maintenance page asset, its stylesheet and logo inlined.
    const maintenance = await get(port, "/status/503", "shop.example");
    expect(maintenance.status).toBe(503);
    expect(maintenance.body).toContain("<title>Shop under maintenance</title>");
    expect(maintenance.body).toContain("<style>body{font-family:system-ui");
    expect(maintenance.body).toContain('<img src="data:image/svg+xml;base64,');
    expect(maintenance.body).toMatch(/Reference: [0-9a-f]{16}</);
  }, 90_000);
});

function get(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { ...headers, Host: host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", fail);
    req.end();
  });
}
