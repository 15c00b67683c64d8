/**
 * `npm run check-config`: validates the Worker's configuration before anything starts, with the Worker's OWN parser
 * (src/shared/settings.ts `checkSettings`, src/api/kit/auth.ts `parseApiTokens`: imported, not copied). Run by
 * `npm run dev` (scripts/dev.mjs) and `npm run deploy`.
 *
 *   tsx scripts/check-config.ts [--deploy] [--var KEY:VALUE]…
 *
 * Files are read by wrangler itself (its own TOML and .dev.vars readers), so the values checked are the values
 * wrangler would bind:
 *   - local (default): wrangler.toml `[vars]`, then `.dev.vars` (or `.env`) over them, then `--var` overrides,
 *     exactly as `wrangler dev` merges them. An invalid var, or a malformed API_TOKENS, fails (exit 1); a missing or
 *     empty ADMIN_TOKEN is a warning (the service runs, but its management API answers 401 to everything).
 *   - `--deploy`: wrangler.toml `[vars]` only (.dev.vars is never deployed). Fails on an invalid var, the placeholder
 *     KV namespace id, DEV_INSTANCE set, or ADMIN_TOKEN / API_TOKENS written as plain vars (secrets belong in
 *     `wrangler secret put`). Secrets live on the platform: with `--secrets` it also asks the platform
 *     (`wrangler secret list`, online, the same credentials as the deploy) that ADMIN_TOKEN or API_TOKENS exists.
 * Exit 0 when the configuration is usable; every problem is one line naming the var, the problem and what is used.
 */
import { spawnSync } from "node:child_process";
import { checkSettings } from "../src/shared/settings.ts";
import { parseApiTokens } from "../src/api/kit/auth.ts";

/** The KV namespace id wrangler.toml ships with (README "Deploying" step 1 replaces it). */
export const PLACEHOLDER_KV_ID = "00000000000000000000000000000001";

interface Options {
  readonly deploy: boolean;
  readonly secrets: boolean;
  readonly overrides: Readonly<Record<string, string>>;
}

function parseArgs(argv: readonly string[]): Options {
  const overrides: Record<string, string> = {};
  let deploy = false;
  let secrets = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--deploy") deploy = true;
    else if (arg === "--secrets") secrets = true;
    else if (arg === "--var" && argv[i + 1] !== undefined) {
      const pair = argv[++i] ?? "";
      const colon = pair.indexOf(":");
      if (colon > 0) overrides[pair.slice(0, colon)] = pair.slice(colon + 1);
    }
  }
  return { deploy, secrets, overrides };
}

const options = parseArgs(process.argv.slice(2));
const errors: string[] = [];
const warnings: string[] = [];

/** The part of wrangler's API used here: its own readers of wrangler.toml and .dev.vars (wrangler 4.86). */
interface WranglerConfigApi {
  experimental_readRawConfig(
    this: void,
    args: { config: string },
  ): {
    rawConfig: { vars?: Record<string, unknown>; kv_namespaces?: { binding: string; id?: string }[] };
  };
  unstable_getVarsForDev(
    this: void,
    configPath: string,
    envFiles: undefined,
    vars: Record<string, unknown>,
    env: undefined,
    silent: boolean,
  ): Record<string, { value: unknown }>;
}
const wranglerModule = "wrangler";
const { experimental_readRawConfig, unstable_getVarsForDev } = (await import(wranglerModule)) as WranglerConfigApi;

const { rawConfig } = experimental_readRawConfig({ config: "wrangler.toml" });
const tomlVars = Object.fromEntries(
  Object.entries(rawConfig.vars ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
);
const vars: Record<string, string> = options.deploy
  ? { ...tomlVars }
  : Object.fromEntries(
      Object.entries(unstable_getVarsForDev("wrangler.toml", undefined, rawConfig.vars ?? {}, undefined, true)).map(
        ([k, binding]) => [k, typeof binding.value === "string" ? binding.value : JSON.stringify(binding.value)],
      ),
    );
Object.assign(vars, options.overrides);

for (const p of checkSettings(vars).problems) {
  errors.push(`${p.var} = ${JSON.stringify(p.value)}: ${p.problem}; the Worker would use ${p.used}`);
}

if (options.deploy) {
  for (const ns of rawConfig.kv_namespaces ?? []) {
    if (ns.id === PLACEHOLDER_KV_ID) {
      errors.push(
        `kv_namespaces ${ns.binding}: id is the placeholder ${PLACEHOLDER_KV_ID}: run \`npx wrangler kv namespace create ${ns.binding}\` and put its id in wrangler.toml`,
      );
    }
  }
  if (tomlVars.DEV_INSTANCE !== undefined) errors.push("DEV_INSTANCE is for `npm run dev` only: remove it from [vars]");
  // [vars] or `--var`: a deployment never lets webhooks reach loopback (docs/analytics.md "Webhook targets").
  if (vars.WEBHOOK_LOOPBACK !== undefined) {
    errors.push(
      "WEBHOOK_LOOPBACK lets alert webhooks reach loopback: for `npm run dev` and tests only, remove it from [vars]",
    );
  }
  for (const secret of ["ADMIN_TOKEN", "API_TOKENS"]) {
    if (tomlVars[secret] !== undefined) {
      errors.push(
        `${secret} is a secret: remove it from [vars] and use \`npx wrangler secret put ${secret} -c wrangler.toml\``,
      );
    }
  }
  if (errors.length === 0 && options.secrets) checkPlatformSecrets();
  else if (errors.length === 0) {
    warnings.push(
      "secrets not checked (they live on the platform): `npx wrangler secret list -c wrangler.toml` must list ADMIN_TOKEN or API_TOKENS, or every management API call answers 401",
    );
  }
} else {
  if (!vars.ADMIN_TOKEN?.trim()) {
    warnings.push(
      "ADMIN_TOKEN is missing or empty in .dev.vars: the management API answers 401 to every request; add `ADMIN_TOKEN=dev-admin-token` (see .dev.vars.example)",
    );
  }
  const apiTokens = vars.API_TOKENS;
  if (apiTokens !== undefined && apiTokens.trim() !== "") {
    const parsed = parseApiTokens(apiTokens);
    if (!parsed.ok) errors.push(`API_TOKENS: ${parsed.error}; the Worker would accept no scoped token (fails closed)`);
  }
}

/** `wrangler secret list` (online): ADMIN_TOKEN or API_TOKENS must exist, or nobody can use the API. */
function checkPlatformSecrets(): void {
  const listed = spawnSync(
    process.execPath,
    ["node_modules/wrangler/bin/wrangler.js", "secret", "list", "-c", "wrangler.toml", "--format", "json"],
    { encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" } },
  );
  let names: string[] | null = null;
  try {
    const data: unknown = JSON.parse(listed.stdout);
    if (Array.isArray(data)) names = data.map((s: { name?: unknown }) => String(s.name));
  } catch {
    names = null;
  }
  if (listed.status !== 0 || names === null) {
    errors.push(
      `could not list the Worker's secrets (\`wrangler secret list\`): ${listed.stderr.trim().slice(0, 300)}`,
    );
  } else if (!names.includes("ADMIN_TOKEN") && !names.includes("API_TOKENS")) {
    errors.push(
      "neither ADMIN_TOKEN nor API_TOKENS is set on the platform: `npx wrangler secret put ADMIN_TOKEN -c wrangler.toml`",
    );
  }
}

const where = options.deploy ? "wrangler.toml (deploy)" : "wrangler.toml + .dev.vars";
for (const line of warnings) console.error(`[check-config] warning: ${line}`);
for (const line of errors) console.error(`[check-config] invalid: ${line}`);
if (errors.length > 0) {
  console.error(`[check-config] ${errors.length} problem(s) in ${where}; see docs/configuration.md`);
  process.exit(1);
}
console.log(`[check-config] ${where}: ok`);
