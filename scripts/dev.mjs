#!/usr/bin/env node
// `npm run dev`: a working local service on a fresh clone, in one command, that reports only what it did.
//
//   npm run dev [-- --port N] [--origin-port N] [--reseed] [wrangler dev flags…]      (or PORT=N / ORIGIN_PORT=N)
//
// 1. copies .dev.vars.example to .dev.vars when missing (local secrets, never committed), and says loudly when
//    .dev.vars has no ADMIN_TOKEN (nothing can be seeded, the management API answers 401 to everything);
// 2. checks, before starting anything, that 127.0.0.1:{port} (default 8787) and 127.0.0.1:{origin port} (default
//    8788) are free: a taken port stops it with a message naming each taken port and one command, with two ports
//    found free just now, that starts;
// 3. validates wrangler.toml and .dev.vars with the Worker's own parser (`npm run check-config`, src/shared/
//    settings.ts): an invalid var stops it;
// 4. starts the example origin (scripts/example-origin.mjs) on 127.0.0.1:{origin port}, unless --origin-port 0;
// 5. runs `wrangler dev -c wrangler.toml` on 127.0.0.1:{port}, offline-friendly (no telemetry, no Request.cf
//    download), with DEFAULT_ORIGIN pointing at the example origin so any Host reaches it, API_HOSTS=localhost (the
//    example origin listens on 127.0.0.1, and an origin is never an API host, docs/origin.md, on any port), and
//    DEV_INSTANCE, a random value of this run that `GET /openapi.json` echoes as `X-Dev-Instance`;
// 6. once the server on {port} answers with this run's DEV_INSTANCE (so it is the one this script started: the
//    admin token is never sent to another process), seeds the example zone `shop.example` through the management
//    API, as a user would, from fixtures/example-zone.json, checking every answer, ONLY when the zone does not exist
//    yet: local state is the user's, so a zone kept from an earlier run is left exactly as it is ("kept your
//    shop.example (version N)"). `--reseed` deletes it first and seeds it afresh (the example restored);
// 7. relays wrangler's output line by line: its esbuild-style `▲ [WARNING]` / `✘ [ERROR]` block around one of the
//    Worker's JSON log lines (a blank line after it, and a burst's other lines as indented notes) becomes one line per
//    log line, keeping the marker; the request lines of this script's own probes (the readiness check, the zone
//    lookup) are left out; its own summary is printed after wrangler's line for its last write, and the banner ends
//    with the URL to open.
// Ctrl-C stops everything. Local KV / Durable Object state lives in .wrangler/state (delete it to start afresh).
// wrangler's output is a pipe here, so wrangler runs without its interactive keys ([b] open a browser, [x] exit):
// Ctrl-C is the way to stop.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createConnection, createServer } from "node:net";
import { relay, stripAnsi } from "./relay.mjs";

const HOST = "127.0.0.1";
/** The example zone (fixtures/example-zone.json). */
const ZONE = "shop.example";
const ZONE_PATH = `/zones/${ZONE}`;
const log = (line) => console.log(`[dev] ${line}`);
const fail = (lines) => {
  console.error(lines.map((l) => `[dev] ${l}`).join("\n"));
  process.exit(1);
};

const options = parseOptions(process.argv.slice(2));
const { port, originPort, forwarded } = options;
const origin = `http://${HOST}:${originPort}`;

// Said at once: on a busy machine the checks and wrangler's start take 30 s or more before anything else is printed.
log(
  `starting the local service on ${HOST}:${port}: checking the ports and the configuration, then ` +
    `${originPort === 0 ? "" : `the example origin (port ${originPort}) and `}wrangler dev (30 s or more on a ` +
    `busy machine); "[dev] ready" follows when it answers.`,
);

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  log("created .dev.vars from .dev.vars.example (ADMIN_TOKEN=dev-admin-token)");
}
const adminToken = devVar("ADMIN_TOKEN");
const noTokenWarning = [
  "!! .dev.vars has no ADMIN_TOKEN (or it is empty): the management API will answer 401 to every request, and",
  "!! the example zone shop.example will NOT be seeded, so the README examples that use it will not work.",
  "!! Fix: add the line `ADMIN_TOKEN=dev-admin-token` to .dev.vars (see .dev.vars.example), or delete .dev.vars",
  "!! to have it recreated, then run `npm run dev` again.",
];
if (!adminToken) console.error(noTokenWarning.map((l) => `[dev] ${l}`).join("\n"));

// Ports first, both of them: nothing is started, and nothing is sent anywhere, when one is taken.
const portTaken = await isTaken(port);
const originTaken = originPort !== 0 && (await isTaken(originPort));
if (portTaken || originTaken) {
  const lines = [];
  if (portTaken) {
    lines.push(
      `port ${port} on ${HOST} is already in use by another process (another \`npm run dev\`?), so wrangler dev cannot listen there.`,
    );
  }
  if (originTaken)
    lines.push(`port ${originPort} on ${HOST} (the example origin's) is already in use by another process.`);
  lines.push(
    `Stop ${portTaken && originTaken ? "them" : "it"}, or start on ports that are free now: ${await freePortsCommand()}`,
  );
  if (originTaken) lines.push("(--origin-port 0 runs without the example origin, and without seeding shop.example.)");
  fail(lines);
}

const devInstance = randomBytes(16).toString("hex");
const workerVars = ["API_HOSTS:localhost", `DEV_INSTANCE:${devInstance}`];
if (originPort !== 0) workerVars.push(`DEFAULT_ORIGIN:${origin}`);

// The same parser as the Worker's (src/shared/settings.ts), before anything starts.
const checked = await run(process.execPath, [
  "--import",
  "tsx",
  "scripts/check-config.ts",
  ...[...workerVars, ...forwardedVars(forwarded)].flatMap((v) => ["--var", v]),
]);
if (checked !== 0) fail(["not started: fix the configuration above (docs/configuration.md), then run it again."]);

const children = [];
let stopping = false;
const stopAll = (signal = "SIGTERM") => children.forEach((c) => c.exitCode === null && c.kill(signal));
// Asked to stop (Ctrl-C): the children's exits that follow are no news.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    stopAll(signal);
  });
}

if (originPort !== 0) {
  const child = spawn(process.execPath, ["scripts/example-origin.mjs", "--port", String(originPort)], {
    stdio: "inherit",
  });
  children.push(child);
  child.on("exit", (code) => {
    if (stopping) return;
    console.error(`[dev] the example origin stopped (exit ${code}); stopping.`);
    stopAll();
  });
  if (!(await listening(originPort, 10_000))) {
    stopAll();
    fail([`the example origin did not listen on ${origin} within 10 s; not started.`]);
  }
  log(`example origin on ${origin}`);
}

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
  // Its output is a pipe (relayed below): keep wrangler's colours when ours is a terminal.
  ...(process.stdout.isTTY && process.env.FORCE_COLOR === undefined && !process.env.NO_COLOR
    ? { FORCE_COLOR: "1" }
    : {}),
};
const args = ["node_modules/wrangler/bin/wrangler.js", "dev", "-c", "wrangler.toml", "--ip", HOST];
args.push("--port", String(port));
for (const v of workerVars) args.push("--var", v);
args.push(...forwarded);
log(`starting wrangler dev on ${HOST}:${port} …`);
// Run wrangler's own entry under this Node (not through `npx`, which does not forward Ctrl-C / SIGTERM). Its stdout
// and stderr come through this script (`relay`): one line per Worker log line, and this script's lines in order.
const wrangler = spawn(process.execPath, args, { stdio: ["inherit", "pipe", "pipe"], env });
children.push(wrangler);
const requestLines = requestLineTracker();
relay(wrangler.stdout, process.stdout, (line) => requestLines.seen(line));
relay(wrangler.stderr, process.stderr, () => true);
// `close`, not `exit`: everything wrangler wrote has been relayed by then.
wrangler.on("close", (code) => {
  stopping = true;
  stopAll();
  process.exit(code ?? 0);
});

const ready = await ownServerReady();
const openLine = `ready: open http://localhost:${port}/`;
if (ready.kind === "foreign") {
  stopping = true;
  stopAll();
  fail([
    `something else answers on ${HOST}:${port} (${ready.detail}), not the wrangler dev this run started: nothing was`,
    `sent to it. Stop that process, or start on ports that are free now: ${await freePortsCommand()}`,
  ]);
} else if (ready.kind === "timeout") {
  console.error(`[dev] wrangler dev did not answer on ${HOST}:${port} within 120 s: shop.example NOT seeded.`);
} else if (originPort === 0) {
  await requestLines.settled();
  log(`no example origin (--origin-port 0): shop.example not seeded${options.reseed ? ", --reseed not applied" : ""}.`);
  log(openLine);
} else if (!adminToken) {
  await requestLines.settled();
  console.error(noTokenWarning.map((l) => `[dev] ${l}`).join("\n"));
  log(openLine);
} else {
  let summary;
  try {
    summary = await exampleZone(options.reseed);
  } catch (e) {
    summary = {
      lines: [
        `could NOT seed shop.example: ${e instanceof Error ? e.message : String(e)}`,
        "the service runs, but the README examples that use shop.example will answer differently.",
      ],
      failed: true,
    };
  }
  // After wrangler's line for this script's last request: the summary is the last word on what was written.
  await requestLines.settled();
  if (summary.failed) console.error(summary.lines.map((l) => `[dev] ${l}`).join("\n"));
  else for (const line of summary.lines) log(line);
  log(openLine);
}

/**
 * `--port N`, `--origin-port N` (also `--x=N`), PORT / ORIGIN_PORT, `--reseed`; everything else goes to wrangler dev.
 */
function parseOptions(argv) {
  let portValue = process.env.PORT || "8787";
  let originValue = process.env.ORIGIN_PORT || "8788";
  let reseed = false;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (name === "--help" || name === "-h") {
      console.log(
        readFileSync(new URL(import.meta.url), "utf8")
          .split("\n")
          .slice(1, 5)
          .join("\n"),
      );
      process.exit(0);
    }
    if (arg === "--reseed") {
      reseed = true;
      continue;
    }
    if (name !== "--port" && name !== "--origin-port") {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) fail([`${name} needs a port number, e.g. \`npm run dev -- ${name} 8790\`.`]);
    if (name === "--port") portValue = value;
    else originValue = value;
  }
  const portNumber = (value, what, zero) => {
    const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= (zero ? 0 : 1) && n <= 65535))
      fail([`${what} must be a port number 1–65535${zero ? " or 0" : ""}: ${JSON.stringify(value)}`]);
    return n;
  };
  const p = portNumber(portValue, "--port / PORT", false);
  const o = portNumber(originValue, "--origin-port / ORIGIN_PORT", true);
  if (p === o) fail([`--port and --origin-port are both ${p}: choose two different ports.`]);
  return { port: p, originPort: o, forwarded: rest, reseed };
}

/** The `--var KEY:VALUE` flags forwarded to wrangler, for check-config to validate too. */
function forwardedVars(argv) {
  const vars = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--var") while (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) vars.push(argv[++i]);
    else if (argv[i].startsWith("--var=")) vars.push(argv[i].slice(6));
  }
  return vars;
}

/** A key of .dev.vars, read as wrangler reads it (dotenv: `KEY=value`, optional quotes, `#` comments). */
function devVar(key) {
  const match = new RegExp(`^[ \\t]*(?:export[ \\t]+)?${key}[ \\t]*=(.*)$`, "m").exec(
    readFileSync(".dev.vars", "utf8"),
  );
  const raw = match?.[1]?.trim() ?? "";
  const quoted = /^(["'`])(.*)\1$/.exec(raw);
  return (quoted ? quoted[2] : raw.replace(/(^|\s)#.*$/, "")).trim();
}

/** Whether another process listens on HOST:p: try to listen there ourselves (no byte is sent to anyone). */
function isTaken(p) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (e) => resolve(e.code === "EADDRINUSE" || e.code === "EACCES"));
    server.listen({ host: HOST, port: p, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/**
 * One command that starts: this run's flags with both ports free now (each checked as `isTaken` does, and the two
 * distinct). Always both flags, so it holds whichever port was taken and whatever PORT / ORIGIN_PORT say.
 */
async function freePortsCommand() {
  const firstFree = async (from, avoid) => {
    for (let candidate = from; candidate <= 65535; candidate++) {
      if (candidate !== avoid && !(await isTaken(candidate))) return candidate;
    }
    return from;
  };
  const p = await isTaken(port).then((taken) => (taken ? firstFree(port + 1, originPort) : port));
  const o =
    originPort === 0 || (originPort !== p && !(await isTaken(originPort)))
      ? originPort
      : await firstFree(originPort + 1, p);
  const words = ["npm", "run", "dev", "--", "--port", String(p), "--origin-port", String(o)];
  if (options.reseed) words.push("--reseed");
  words.push(...forwarded.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`)));
  return `\`${words.join(" ")}\``;
}

function listening(p, withinMs) {
  const deadline = Date.now() + withinMs;
  return new Promise((resolve) => {
    const attempt = () => {
      const socket = createConnection({ host: HOST, port: p });
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => (Date.now() > deadline ? resolve(false) : setTimeout(attempt, 100)));
    };
    attempt();
  });
}

function run(command, argv) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: "inherit" });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

/**
 * Waits until the server on {port} answers `GET /openapi.json` (public, no token sent) with this run's
 * X-Dev-Instance. Any other answer is another process: it gets nothing more, least of all the admin token.
 */
async function ownServerReady() {
  for (let attempt = 0; attempt < 240; attempt++) {
    await new Promise((r) => setTimeout(r, 500));
    let res;
    try {
      res = await httpCall("GET", "/openapi.json", undefined, { token: false, hide: true });
    } catch {
      continue; // not listening yet
    }
    if (res.headers["x-dev-instance"] === devInstance) return { kind: "ours" };
    res.forget(); // not the Worker's answer: no request line of it is awaited
    // wrangler's proxy answers 503 while the Worker reloads; everything else is someone else's server.
    if (res.status !== 503) return { kind: "foreign", detail: `it answered GET /openapi.json with ${res.status}` };
  }
  return { kind: "timeout" };
}

/**
 * One call to the local Worker, as `localhost` (an API host), over 127.0.0.1, announced to `requestLines` first:
 * wrangler's line for it is awaited before the summary (and left out when `hide`: a probe, not a write).
 */
function httpCall(method, path, body, { token = true, hide = false } = {}) {
  const expected = requestLines.expect(method, path, hide);
  const withToken = token;
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: HOST,
        port,
        method,
        path,
        headers: {
          Host: `localhost:${port}`,
          ...(withToken ? { Authorization: `Bearer ${adminToken}` } : {}),
          ...(payload === undefined
            ? {}
            : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          requestLines.answered(expected);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            forget: () => requestLines.forget(expected),
          });
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.on("error", (e) => {
      requestLines.forget(expected);
      reject(e);
    });
    req.end(payload);
  });
}

/** Every write must answer 200 with `success: true` (the v4 envelope), or the seeding failed. */
function put(path, body, what) {
  return write("PUT", path, body, what);
}

/** The write's `result`. */
async function write(method, path, body, what) {
  const res = await httpCall(method, path, body);
  const envelope = envelopeOf(res);
  if (res.status !== 200 || envelope?.success !== true)
    throw new Error(`${what}: ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return envelope.result;
}

function envelopeOf(res) {
  try {
    return JSON.parse(res.text);
  } catch {
    return undefined;
  }
}

/**
 * shop.example as the user left it, or the example: seeded only when the zone does not exist (a 404 to the lookup),
 * or when `--reseed` asks for the example back (the whole zone deleted first, so nothing of the user's version is
 * merged in). Local state is the user's: a kept zone gets no write at all. Returns the lines to print.
 */
async function exampleZone(reseed) {
  const found = await httpCall("GET", ZONE_PATH, undefined, { hide: true });
  const lines = [];
  if (found.status === 200) {
    const kept = envelopeOf(found)?.result ?? {};
    if (!reseed) {
      lines.push(`kept your ${ZONE} (version ${kept.version}); \`npm run dev -- --reseed\` restores the example`);
      if (kept.origin !== origin) {
        lines.push(
          `note: its origin is ${kept.origin ?? "not set"}, not this run's example origin ${origin} (--reseed points it there)`,
        );
      }
      lines.push(tryLines(false));
      return { lines };
    }
    await write("DELETE", ZONE_PATH, undefined, "the zone (--reseed)");
    lines.push(`--reseed: deleted your ${ZONE} (version ${kept.version}) and everything in it`);
  } else if (found.status !== 404) {
    throw new Error(`looking it up: GET ${ZONE_PATH} answered ${found.status}: ${found.text.slice(0, 300)}`);
  }
  const version = await seedExampleZone();
  lines.push(
    `seeded zone ${ZONE} → ${origin} (version ${version}), with custom error rules (one serving the custom error asset ` +
      "maintenance_page), a 500-class page, a firewall rule (/admin), a rate limit (/api/) and an IP access rule. " +
      tryLines(true),
  );
  return { lines };
}

function tryLines(seeded) {
  return (
    "Try:\n" +
    `  curl -H 'Accept: application/json' http://localhost:${port}/cdn-cgi/error/522\n` +
    `  curl -H 'Host: ${ZONE}' http://127.0.0.1:${port}/hello` +
    (seeded ? `\n  curl -H 'Host: ${ZONE}' http://127.0.0.1:${port}/status/503    (the maintenance page asset)` : "")
  );
}

/** Writes the example zone, which does not exist, part by part; the zone's version after the last write. */
async function seedExampleZone() {
  const example = JSON.parse(readFileSync("fixtures/example-zone.json", "utf8"));
  // The example's account (the README's account id): the request tracer, zone tags and the account's analytics page
  // need a zone that belongs to one.
  await put(ZONE_PATH, { ...example.settings, origin }, "the zone");
  // Custom error assets first (fetched from the example origin through the zone): the rules that name them must
  // find them when they are written (docs/custom-errors.md "Custom error assets").
  for (const asset of example.custom_assets) {
    await write("POST", `${ZONE_PATH}/custom_pages/assets`, asset, `the custom error asset ${asset.name}`);
  }
  for (const [phase, ruleset] of Object.entries(example.rulesets)) {
    const rules = [...ruleset.rules, ...(example.asset_rules[phase] ?? [])];
    await put(`${ZONE_PATH}/rulesets/phases/${phase}/entrypoint`, { ...ruleset, rules }, `the ${phase} ruleset`);
  }
  await put(`${ZONE_PATH}/access_rules`, example.access_rules, "the IP access rules");
  for (const [id, content] of Object.entries(example.custom_pages)) {
    await put(`${ZONE_PATH}/custom_pages/${id}`, { state: "customized", content }, `the error page ${id}`);
  }
  const now = await httpCall("GET", ZONE_PATH, undefined, { hide: true });
  return envelopeOf(now)?.result?.version ?? "?";
}

/**
 * wrangler's request lines (`[wrangler:info] GET /path 200 OK (3ms)`) of this script's own requests. Each request is
 * announced before it is sent; the first relayed line with its method and path is its line (written, or left out for
 * a probe). `settled()` waits until every announced request has its line, or gave up on it: 5 s after its answer
 * (wrangler run with `--log-level warn` writes none), at once when it got no answer.
 */
function requestLineTracker() {
  const pending = new Set();
  const forget = (entry) => {
    clearTimeout(entry.timer);
    pending.delete(entry);
    entry.done();
  };
  return {
    expect(method, path, hide) {
      const entry = { method, path, hide, timer: undefined, done: () => {} };
      entry.settled = new Promise((resolve) => (entry.done = resolve));
      pending.add(entry);
      return entry;
    },
    answered(entry) {
      if (pending.has(entry)) entry.timer = setTimeout(() => forget(entry), 5_000);
    },
    forget,
    /** Whether to write the relayed line: false for the line of a probe. */
    seen(line) {
      const request = /^\[wrangler:info\] ([A-Z]+) (\S+) \d{3}\b/.exec(stripAnsi(line));
      if (!request) return true;
      for (const entry of pending) {
        if (entry.method !== request[1] || entry.path !== request[2]) continue;
        forget(entry);
        return !entry.hide;
      }
      return true;
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending].map((e) => e.settled));
    },
  };
}
