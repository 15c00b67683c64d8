#!/usr/bin/env node
// `npm run dev`: a working local service on a fresh clone, in one command, that reports only what it did.
//
//   npm run dev [-- --port N] [--origin-port N] [wrangler dev flags…]      (or PORT=N / ORIGIN_PORT=N)
//
// 1. copies .dev.vars.example to .dev.vars when missing (local secrets, never committed), and says loudly when
//    .dev.vars has no ADMIN_TOKEN (nothing can be seeded, the management API answers 401 to everything);
// 2. checks, before starting anything, that 127.0.0.1:{port} (default 8787) and 127.0.0.1:{origin port} (default
//    8788) are free: a taken port stops it with a message naming the port and the flag that chooses another;
// 3. validates wrangler.toml and .dev.vars with the Worker's own parser (`npm run check-config`, src/shared/
//    settings.ts): an invalid var stops it;
// 4. starts the example origin (scripts/example-origin.mjs) on 127.0.0.1:{origin port}, unless --origin-port 0;
// 5. runs `wrangler dev -c wrangler.toml` on 127.0.0.1:{port}, offline-friendly (no telemetry, no Request.cf
//    download), with DEFAULT_ORIGIN pointing at the example origin so any Host reaches it, API_HOSTS=localhost (the
//    example origin listens on 127.0.0.1, and an origin is never an API host, contract §3, on any port), and
//    DEV_INSTANCE, a random value of this run that `GET /openapi.json` echoes as `X-Dev-Instance`;
// 6. once the server on {port} answers with this run's DEV_INSTANCE (so it is the one this script started: the
//    admin token is never sent to another process), seeds the example zone `shop.example` through the management
//    API, as a user would, from fixtures/example-zone.json, checking every answer; "seeded" is printed only after
//    every write succeeded.
// Ctrl-C stops everything. Local KV / Durable Object state lives in .wrangler/state (delete it to start afresh).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createConnection, createServer } from "node:net";

const HOST = "127.0.0.1";
const log = (line) => console.log(`[dev] ${line}`);
const fail = (lines) => {
  console.error(lines.map((l) => `[dev] ${l}`).join("\n"));
  process.exit(1);
};

const options = parseOptions(process.argv.slice(2));
const { port, originPort, forwarded } = options;
const origin = `http://${HOST}:${originPort}`;

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

// Ports first: nothing is started, and nothing is sent anywhere, when one is taken.
const takenPort = await isTaken(port);
if (takenPort) {
  fail([
    `port ${port} on ${HOST} is already in use by another process (another \`npm run dev\`?), so wrangler dev cannot`,
    `listen there. Stop that process, or choose another port: \`npm run dev -- --port ${port + 3}\` (or PORT=${port + 3}).`,
  ]);
}
if (originPort !== 0 && (await isTaken(originPort))) {
  fail([
    `port ${originPort} on ${HOST} (the example origin's) is already in use by another process. Stop it, or choose`,
    `another port: \`npm run dev -- --origin-port ${originPort + 3}\` (or ORIGIN_PORT=${originPort + 3}); --origin-port 0 runs`,
    `without the example origin (and without seeding shop.example).`,
  ]);
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
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

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
};
const args = ["node_modules/wrangler/bin/wrangler.js", "dev", "-c", "wrangler.toml", "--ip", HOST];
args.push("--port", String(port));
for (const v of workerVars) args.push("--var", v);
args.push(...forwarded);
// Run wrangler's own entry under this Node (not through `npx`, which does not forward Ctrl-C / SIGTERM).
const wrangler = spawn(process.execPath, args, { stdio: "inherit", env });
children.push(wrangler);
wrangler.on("exit", (code) => {
  stopping = true;
  stopAll();
  process.exit(code ?? 0);
});

const ready = await ownServerReady();
if (ready.kind === "foreign") {
  stopping = true;
  stopAll();
  fail([
    `something else answers on ${HOST}:${port} (${ready.detail}), not the wrangler dev this run started: nothing was`,
    `sent to it. Stop that process, or choose another port: \`npm run dev -- --port ${port + 3}\`.`,
  ]);
} else if (ready.kind === "timeout") {
  console.error(`[dev] wrangler dev did not answer on ${HOST}:${port} within 120 s: shop.example NOT seeded.`);
} else if (originPort === 0) {
  log(`ready on http://localhost:${port} (no example origin: --origin-port 0, shop.example not seeded)`);
} else if (!adminToken) {
  console.error(noTokenWarning.map((l) => `[dev] ${l}`).join("\n"));
} else {
  seedExampleZone().then(
    () =>
      log(
        `seeded zone shop.example → ${origin}, with custom error rules (one serving the custom error asset maintenance_page), a 500-class page, a firewall rule (/admin), a rate limit (/api/) and an IP access rule. Try:\n` +
          `  curl -H 'Accept: application/json' http://localhost:${port}/cdn-cgi/error/522\n` +
          `  curl -H 'Host: shop.example' http://127.0.0.1:${port}/hello\n` +
          `  curl -H 'Host: shop.example' http://127.0.0.1:${port}/status/503    (the maintenance page asset)`,
      ),
    (e) =>
      console.error(
        `[dev] could NOT seed shop.example: ${e.message}\n` +
          `[dev] the service runs, but the README examples that use shop.example will answer differently.`,
      ),
  );
}

/** `--port N`, `--origin-port N` (also `--x=N`), PORT / ORIGIN_PORT; everything else goes to wrangler dev. */
function parseOptions(argv) {
  let portValue = process.env.PORT || "8787";
  let originValue = process.env.ORIGIN_PORT || "8788";
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
  return { port: p, originPort: o, forwarded: rest };
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
      res = await httpCall("GET", "/openapi.json", undefined, false);
    } catch {
      continue; // not listening yet
    }
    if (res.headers["x-dev-instance"] === devInstance) return { kind: "ours" };
    // wrangler's proxy answers 503 while the Worker reloads; everything else is someone else's server.
    if (res.status !== 503) return { kind: "foreign", detail: `it answered GET /openapi.json with ${res.status}` };
  }
  return { kind: "timeout" };
}

/** One call to the local Worker, as `localhost` (an API host), over 127.0.0.1. */
function httpCall(method, path, body, withToken = true) {
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
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** Every write must answer 200 with `success: true` (the v4 envelope), or the seeding failed. */
function put(path, body, what) {
  return write("PUT", path, body, what);
}

async function write(method, path, body, what) {
  const res = await httpCall(method, path, body);
  let success = false;
  try {
    success = JSON.parse(res.text).success === true;
  } catch {
    success = false;
  }
  if (res.status !== 200 || !success)
    throw new Error(`${what}: ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
}

async function seedExampleZone() {
  const example = JSON.parse(readFileSync("fixtures/example-zone.json", "utf8"));
  await put("/zones/shop.example", { plan: "pro", origin }, "the zone");
  // Custom error assets first (fetched from the example origin through the zone): the rules that name them must
  // find them when they are written (docs/custom-errors.md "Custom error assets").
  for (const asset of example.custom_assets) {
    const what = `the custom error asset ${asset.name}`;
    // State kept from an earlier run already has it (409): update it instead, which fetches it again.
    const created = await httpCall("POST", "/zones/shop.example/custom_pages/assets", asset);
    if (created.status === 409) {
      const { description, url } = asset;
      await put(`/zones/shop.example/custom_pages/assets/${asset.name}`, { description, url }, what);
    } else if (created.status !== 200) {
      throw new Error(
        `${what}: POST /zones/shop.example/custom_pages/assets answered ${created.status}: ${created.text.slice(0, 300)}`,
      );
    }
  }
  for (const [phase, ruleset] of Object.entries(example.rulesets)) {
    const rules = [...ruleset.rules, ...(example.asset_rules[phase] ?? [])];
    await put(`/zones/shop.example/rulesets/phases/${phase}/entrypoint`, { ...ruleset, rules }, `the ${phase} ruleset`);
  }
  await put("/zones/shop.example/access_rules", example.access_rules, "the IP access rules");
  for (const [id, content] of Object.entries(example.custom_pages)) {
    await put(`/zones/shop.example/custom_pages/${id}`, { state: "customized", content }, `the error page ${id}`);
  }
}
