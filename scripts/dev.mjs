#!/usr/bin/env node
// `npm run dev`: a working local service on a fresh clone, in one command.
// 1. copies .dev.vars.example to .dev.vars when missing (local secrets, never committed);
// 2. starts the example origin (scripts/example-origin.mjs) on 127.0.0.1:8788 unless ORIGIN_PORT=0 or the port
//    is already taken (then whatever listens there is used);
// 3. runs `wrangler dev -c wrangler.toml` on 127.0.0.1:8787, offline-friendly (no telemetry, no Request.cf
//    download), with DEFAULT_ORIGIN pointing at the example origin so any Host reaches it, and API_HOSTS=localhost:
//    the example origin listens on 127.0.0.1, and an origin is never an API host (contract §3, on any port), so
//    locally the management API answers on `localhost` only;
// 4. once it answers, seeds the example zone `shop.example` through the management API, as a user would, from
//    fixtures/example-zone.json: the zone (plan pro, origin = the example origin), one custom error rule (JSON for
//    API clients on 5xx), a 500-class error page, a firewall rule, a rate-limiting rule and an IP access rule.
// Ctrl-C stops everything. Local KV / Durable Object state lives in .wrangler/state.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createConnection } from "node:net";

const port = Number(process.env.PORT ?? 8787);
const originPort = Number(process.env.ORIGIN_PORT ?? 8788);
const origin = `http://127.0.0.1:${originPort}`;

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("[dev] created .dev.vars from .dev.vars.example (ADMIN_TOKEN=dev-admin-token)");
}
const adminToken = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim();

const children = [];
const stopAll = (signal = "SIGTERM") => children.forEach((c) => c.exitCode === null && c.kill(signal));
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

if (originPort !== 0 && !(await isListening(originPort))) {
  const child = spawn(process.execPath, ["scripts/example-origin.mjs", "--port", String(originPort)], {
    stdio: "inherit",
  });
  children.push(child);
  console.log(`[dev] example origin on ${origin}`);
}

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};
const args = [
  "node_modules/wrangler/bin/wrangler.js",
  "dev",
  "-c",
  "wrangler.toml",
  "--ip",
  "127.0.0.1",
  "--port",
  String(port),
];
args.push("--var", "API_HOSTS:localhost");
if (originPort !== 0) args.push("--var", `DEFAULT_ORIGIN:${origin}`);
args.push(...process.argv.slice(2));
// Run wrangler's own entry under this Node (not through `npx`, which does not forward Ctrl-C / SIGTERM).
const wrangler = spawn(process.execPath, args, { stdio: "inherit", env });
children.push(wrangler);
wrangler.on("exit", (code) => {
  stopAll();
  process.exit(code ?? 0);
});

if (originPort !== 0 && adminToken)
  seedExampleZone().catch((e) => console.log(`[dev] could not seed shop.example: ${e.message}`));

/** One management API call to the local Worker, as `localhost` (an API host), over 127.0.0.1. */
function apiCall(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: {
          Host: `localhost:${port}`,
          Authorization: `Bearer ${adminToken}`,
          ...(payload === undefined
            ? {}
            : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function seedExampleZone() {
  let ready = false;
  for (let attempt = 0; attempt < 120 && !ready; attempt++) {
    await new Promise((r) => setTimeout(r, 500));
    let res;
    try {
      res = await apiCall("PUT", "/zones/shop.example", { plan: "pro", origin });
    } catch {
      continue; // not listening yet
    }
    if (res.status === 200) ready = true;
    else if (res.status !== 503 && res.status < 500) throw new Error(`zone API answered ${res.status}: ${res.text}`);
  }
  if (!ready) throw new Error("wrangler dev did not answer within 60 s");
  const example = JSON.parse(readFileSync("fixtures/example-zone.json", "utf8"));
  for (const [phase, ruleset] of Object.entries(example.rulesets)) {
    const put = await apiCall("PUT", `/zones/shop.example/rulesets/phases/${phase}/entrypoint`, ruleset);
    if (put.status !== 200) throw new Error(`ruleset ${phase} answered ${put.status}: ${put.text}`);
  }
  const access = await apiCall("PUT", "/zones/shop.example/access_rules", example.access_rules);
  if (access.status !== 200) throw new Error(`access rules answered ${access.status}: ${access.text}`);
  for (const [id, content] of Object.entries(example.custom_pages)) {
    const put = await apiCall("PUT", `/zones/shop.example/custom_pages/${id}`, { state: "customized", content });
    if (put.status !== 200) throw new Error(`custom page ${id} answered ${put.status}: ${put.text}`);
  }
  console.log(
    `[dev] seeded zone shop.example → ${origin}, with a custom error rule, a 500-class page, a firewall rule (/admin), a rate limit (/api/) and an IP access rule. Try:\n` +
      `  curl -H 'Accept: application/json' http://localhost:${port}/cdn-cgi/error/522\n` +
      `  curl -H 'Host: shop.example' http://127.0.0.1:${port}/hello`,
  );
}

function isListening(p) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: p });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}
