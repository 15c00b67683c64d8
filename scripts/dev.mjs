#!/usr/bin/env node
// `npm run dev`: a working local service on a fresh clone.
// - copies .dev.vars.example to .dev.vars when missing (local secrets, never committed);
// - runs `wrangler dev -c wrangler.toml` offline-friendly (no telemetry, no Request.cf download);
// - DEFAULT_ORIGIN defaults to the local example origin (scripts/example-origin.mjs) so zone traffic works.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";

if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("created .dev.vars from .dev.vars.example (ADMIN_TOKEN=dev-admin-token)");
}

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};
const args = ["wrangler", "dev", "-c", "wrangler.toml", "--ip", "127.0.0.1", "--port", process.env.PORT ?? "8787"];
args.push(...process.argv.slice(2));
const child = spawn("npx", args, { stdio: "inherit", env });
const stop = (signal) => child.kill(signal);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", (code) => process.exit(code ?? 0));
