/**
 * `npm run dev` tells the truth: scripts/dev.mjs run as a real process, in a scratch directory that links the
 * project's code (so each scenario has its own .dev.vars and .wrangler/state), against real listeners on 127.0.0.1
 * that take its ports. Non-default ports throughout, so a developer's own `npm run dev` is never touched. Every
 * process started here is the leader of its own group (`detached`), and every group is killed whole, in `finally`
 * and again after each test: wrangler and workerd never outlive a test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../servers/ports.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

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

/** Kills a process group with SIGKILL if any of it is left (the group's leader may be gone, its children not). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // nothing left of it
  }
}

/** Whether any process of the group is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A scratch project: the code linked, `.dev.vars` as given (absent when `null`); removed after the test, or by
 * whoever runs `steps` (a process shared by several tests).
 */
function project(devVars: string | null, steps = cleanup): string {
  const dir = mkdtempSync(join(tmpdir(), "edge-dev-"));
  for (const name of [...LINKED, ".dev.vars.example"]) symlinkSync(join(root, name), join(dir, name));
  if (devVars !== null) writeFileSync(join(dir, ".dev.vars"), devVars);
  steps.push(() => rmSync(dir, { recursive: true, force: true }));
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

/** Whether this process can listen on 127.0.0.1:port (then it lets go at once). */
function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => server.close(() => done(true)));
  });
}

/** Runs dev.mjs to its end (bounded), its stdout and stderr interleaved. */
function runDev(cwd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["scripts/dev.mjs", ...args], {
      cwd,
      env: { ...process.env, PORT: "", ORIGIN_PORT: "", ...env },
      detached: true,
    });
    cleanup.push(() => killGroup(child.pid));
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => killGroup(child.pid), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

describe("ports are checked before anything starts", () => {
  it("says at once what it is doing: its first line, before any check", async () => {
    const taken = await listener();
    const run = await runDev(project(null), ["--port", String(taken.port), "--origin-port", String(await freePort())]);
    expect(run.output.split("\n")[0]).toMatch(
      new RegExp(`^\\[dev\\] starting the local service on 127\\.0\\.0\\.1:${taken.port}: checking the ports`),
    );
  });

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

  it("both ports taken: both named, and ONE command whose two ports are free", async () => {
    const [worker, example] = [await listener(), await listener()];
    const run = await runDev(project(null), ["--port", String(worker.port), "--origin-port", String(example.port)]);
    expect(run.code).toBe(1);
    expect(run.output).toContain(`port ${worker.port} on 127.0.0.1 is already in use`);
    expect(run.output).toContain(`port ${example.port} on 127.0.0.1 (the example origin's) is already in use`);
    const commands = [...run.output.matchAll(/`npm run dev -- ([^`]*)`/g)].map((m) => m[1] ?? "");
    expect(commands).toHaveLength(1);
    const flags = /^--port (\d+) --origin-port (\d+)$/.exec(commands[0] ?? "");
    expect(flags, commands[0]).not.toBeNull();
    const [p, o] = [Number(flags?.[1]), Number(flags?.[2])];
    expect(new Set([p, o, worker.port, example.port]).size).toBe(4);
    // Free indeed: each can be listened on (which is how dev.mjs checks its ports before starting).
    for (const port of [p, o]) expect(await canListen(port), `port ${port}`).toBe(true);
    expect(worker.connections() + example.connections()).toBe(0);
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

/** `npm run dev` started for real: its output so far, and a way to stop it as Ctrl-C does. */
interface Dev {
  readonly child: ChildProcessWithoutNullStreams;
  output(): string;
  /** Resolves once the output matches (or the process ended, or the time is up): the output then. */
  until(pattern: RegExp, withinMs?: number): Promise<string>;
  /** Ctrl-C: SIGINT to the whole group, then waits until no process of it is left (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

/** Killed (its whole group) after the test, or by whoever runs `steps` (a process shared by several tests). */
function startDev(cwd: string, args: string[], steps = cleanup): Dev {
  const child = spawn(process.execPath, ["scripts/dev.mjs", ...args], {
    cwd,
    env: { ...process.env, PORT: "", ORIGIN_PORT: "" },
    detached: true,
  });
  steps.push(() => killGroup(child.pid));
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    child,
    output: () => output,
    async until(pattern, withinMs = 90_000) {
      const deadline = Date.now() + withinMs;
      while (!pattern.test(output) && child.exitCode === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      return output;
    },
    async stop() {
      const pid = child.pid!;
      try {
        process.kill(-pid, "SIGINT");
      } catch {
        return;
      }
      const deadline = Date.now() + 20_000;
      while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      killGroup(pid);
    },
  };
}

const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

/** The lines of the output, without colours. */
const linesOf = (text: string): string[] => plain(text).split("\n");

/** A custom error rule of the user's: the example origin's 520 on /drop answered with the user's own text. */
/** wrangler's line for a request answered 4xx or 5xx: what would read as a failure. */
const FAILED_REQUEST = /\[wrangler:info\] [A-Z]+ \S+ [45]\d\d /;

const RULE = {
  description: "the user's own rule, added after the seed",
  expression: 'http.request.uri.path eq "/drop"',
  action: "serve_error",
  action_parameters: { content: "the user's own answer", content_type: "text/plain" },
};

/**
 * One real start for the two tests below (each start of wrangler and workerd costs 15–20 s of a 2-core machine): the
 * quiet-console test first, since it changes nothing, then the seed test, which reads the output the start printed up
 * to its banner and then turns maintenance mode on.
 */
describe("a real start", () => {
  const steps: (() => void)[] = [];
  let port = 0;
  let origin = 0;
  let running: Dev | undefined;
  let started = "";
  beforeAll(async () => {
    [port, origin] = [await freePort(), await freePort()];
    running = startDev(project(null, steps), ["--port", String(port), "--origin-port", String(origin)], steps);
    started = await running.until(/\[dev\] ready: open /);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
    for (const step of steps.splice(0).reverse()) step();
  }, 30_000);

  it("quiet console: one line per generated error (a 520, a burst of them), a preview is no edge_error", async () => {
    const dev = running;
    if (dev === undefined) throw new Error("npm run dev did not start");
    const rays: string[] = [];
    const one = await get(port, "/drop", "shop.example"); // 520: the origin closes the connection
    expect(one.status).toBe(520);
    rays.push(one.ray);
    // A burst: the Worker writes the lines of one window in one console.warn (a multi-line message).
    const burst = await Promise.all(Array.from({ length: 4 }, () => get(port, "/drop", "shop.example")));
    rays.push(...burst.map((r) => r.ray));
    const preview = await get(port, "/cdn-cgi/error/522", `localhost:${port}`);
    expect(preview.status).toBe(522);
    await dev.until(new RegExp(`${[...rays, preview.ray].map((r) => `(?=[\\s\\S]*${r})`).join("")}`), 20_000);
    await new Promise((r) => setTimeout(r, 300)); // whatever wrangler prints after a line
    const lines = linesOf(dev.output());
    for (const ray of rays) {
      const at = lines.flatMap((l, i) => (l.includes(`"ray":"${ray}"`) ? [i] : []));
      expect(at, `the line of ${ray}`).toHaveLength(1);
      const line = lines[at[0]!] ?? "";
      expect(line).toMatch(/^▲ \[WARNING\] \{"event":"edge_error",.*"code":520,.*\}$/);
      expect(lines[at[0]! + 1], "no blank line after it").not.toBe("");
    }
    const previewLine = lines.find((l) => l.includes(`"ray":"${preview.ray}"`));
    expect(previewLine).toMatch(/^\{"event":"error_preview",.*"code":522,.*\}$/);
  }, 120_000);

  it("seeds only its own server, every write checked, then says so; the zone answers", async () => {
    // The output up to the banner: what the start itself printed, before the test above sent anything.
    const output = started;
    expect(output).toContain(`[dev] seeded zone shop.example → http://127.0.0.1:${origin} (version `);
    // The seeded line comes after wrangler's line for the last write; the banner ends with the URL to open.
    const lines = linesOf(output);
    const lastWrite = lines.reduce(
      (last, l, i) => (/^\[wrangler:info\] (PUT|POST|DELETE) \/zones\//.test(l) ? i : last),
      -1,
    );
    const seeded = lines.findIndex((l) => l.startsWith("[dev] seeded zone shop.example"));
    expect(lastWrite).toBeGreaterThan(-1);
    expect(seeded).toBeGreaterThan(lastWrite);
    expect(lines.filter((l) => l.startsWith("[dev] ")).at(-1)).toBe(`[dev] ready: open http://localhost:${port}/`);
    // Nothing that reads as a failure: no 4xx of the script's own requests (a 409 Conflict), no "could NOT".
    expect(plain(output)).not.toMatch(FAILED_REQUEST);
    expect(output).not.toMatch(/Conflict|could NOT/);
    // What the line says is true: the zone proxies to the example origin, and each seeded part answers.
    expect(await get(port, "/hello", "shop.example")).toMatchObject({ status: 200, body: "hello from the origin\n" });
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
    // Maintenance mode, off in the seed: turned on, a browser gets the same asset with the zone's Retry-After, the
    // office range still reaches the origin, a JSON client gets the structured 1200.
    const mode = { enabled: true, retry_after: 600, allow: "ip.src in {203.0.113.0/24}" };
    await api(port, "PATCH", "/zones/shop.example", { maintenance: mode });
    const down = await get(port, "/hello", "shop.example", { Accept: "text/html" });
    expect(down.status).toBe(503);
    expect(down.body).toContain("<title>Shop under maintenance</title>");
    const office = await get(port, "/hello", "shop.example", { "CF-Connecting-IP": "203.0.113.9" });
    expect(office).toMatchObject({ status: 200, body: "hello from the origin\n" });
    const json = await get(port, "/hello", "shop.example", { Accept: "application/json" });
    expect(JSON.parse(json.body)).toMatchObject({ error_code: 1200, retry_after: 600 });
  }, 120_000);
});

describe("restarts", () => {
  it("a restart keeps the user's work (and says so); --reseed restores the example", async () => {
    const [port, origin] = [await freePort(), await freePort()];
    const dir = project(null);
    const args = ["--port", String(port), "--origin-port", String(origin)];
    const first = startDev(dir, args);
    let ruleset: { id: string; rules: { description?: string }[] };
    let version: number;
    try {
      await first.until(/\[dev\] ready: open /);
      ruleset = (await api(port, "GET", "/zones/shop.example/rulesets/phases/http_custom_errors/entrypoint")).result;
      expect(ruleset.rules).toHaveLength(3);
      const added = await api(port, "POST", `/zones/shop.example/rulesets/${ruleset.id}/rules`, RULE);
      expect(added.result.rules.map((r: { description?: string }) => r.description)).toContain(RULE.description);
      expect((await get(port, "/drop", "shop.example")).body).toBe("the user's own answer");
      version = (await api(port, "GET", "/zones/shop.example")).result.version;
    } finally {
      await first.stop();
    }

    const second = startDev(dir, args);
    try {
      const output = await second.until(/\[dev\] ready: open /);
      expect(output).toContain(
        `[dev] kept your shop.example (version ${version}); \`npm run dev -- --reseed\` restores the example`,
      );
      // Nothing was written, nothing failed: no write line, no 404 of the lookup, no 409.
      expect(plain(output)).not.toMatch(/\[wrangler:info\] (PUT|POST|DELETE) |seeded|could NOT/);
      expect(plain(output)).not.toMatch(FAILED_REQUEST);
      const kept = await api(port, "GET", "/zones/shop.example/rulesets/phases/http_custom_errors/entrypoint");
      expect(kept.result.rules.map((r: { description?: string }) => r.description)).toContain(RULE.description);
      expect((await get(port, "/drop", "shop.example")).body).toBe("the user's own answer");
    } finally {
      await second.stop();
    }

    const third = startDev(dir, [...args, "--reseed"]);
    try {
      const output = await third.until(/\[dev\] ready: open /);
      expect(output).toContain(`[dev] --reseed: deleted your shop.example (version ${version})`);
      expect(output).toContain("[dev] seeded zone shop.example");
      const restored = await api(port, "GET", "/zones/shop.example/rulesets/phases/http_custom_errors/entrypoint");
      expect(restored.result.rules).toHaveLength(3);
      expect(restored.result.rules.map((r: { description?: string }) => r.description)).not.toContain(RULE.description);
      expect((await get(port, "/drop", "shop.example")).body).toContain("<html"); // the example's 500-class page
    } finally {
      await third.stop();
    }
  }, 300_000);
});

/** A management API call as `localhost` with the token .dev.vars.example sets; asserts a 200 envelope. */
async function api(
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ result: { id: string; version: number; rules: { description?: string }[] } }> {
  const res = await get(port, path, `localhost:${port}`, { Authorization: "Bearer dev-admin-token" }, method, body);
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as { result: { id: string; version: number; rules: { description?: string }[] } };
}

/** One request to 127.0.0.1:port with the given Host; the status, the body and the Ray-ID. */
function get(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: unknown,
): Promise<{ status: number; body: string; ray: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const sent = payload === undefined ? headers : { ...headers, "Content-Type": "application/json" };
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers: { ...sent, Host: host } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => done({ status: res.statusCode ?? 0, body: text, ray: String(res.headers["ray-id"] ?? "") }));
    });
    req.on("error", fail);
    req.end(payload);
  });
}
