/**
 * `npm run zone -- pull|plan|apply|drift` (docs/config-as-code.md "The command"): a zone's bundle in a file, YAML
 * (`.yaml`, `.yml`) or JSON, against any deployment of this Worker (`--api <url>`, default the local `npm run dev`),
 * with the API token from `EDGE_ERRORS_TOKEN`. It only ever writes what `GET /zones/{zone}/bundle` answers, which
 * holds no secret.
 *
 *   pull <zone> [file]   the zone's bundle into the file (or to stdout)
 *   plan <file>          what applying the file would change, per section (`PUT …/bundle?plan=true`)
 *   apply <file>         the plan, then applies exactly it (`If-Match`: the ETag the plan was made against)
 *   drift <file>         the plan; exit 0 when the zone matches the file, 2 when it does not (as `terraform plan
 *                        -detailed-exitcode` does)
 *
 * Exit codes: 0 done (drift: no difference), 1 an error (the API's messages on stderr), 2 drift found.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

interface Change {
  readonly action: "create" | "update" | "delete";
  readonly ref?: string | null;
  readonly id?: string | null;
  readonly name?: string;
  readonly key?: string;
  readonly index?: number;
  readonly fields?: readonly string[];
}
interface Plan {
  readonly changes: number;
  readonly sections: Readonly<Record<string, readonly Change[]>>;
}
interface Envelope<T> {
  readonly success: boolean;
  readonly errors: readonly { readonly code: number; readonly message: string }[];
  readonly result: T;
}

const USAGE =
  "usage: npm run zone -- pull <zone> [file] | plan <file> | apply <file> | drift <file> " +
  "[--api <url>] [--zone <zone>]   (token: EDGE_ERRORS_TOKEN)";

class Failure extends Error {}

const isYaml = (file: string): boolean => /\.ya?ml$/i.test(file);

/** The bundle as a file holds it: YAML that reads back to the same JSON, or the JSON itself, 2-space indented. */
function format(file: string | undefined, bundle: unknown): string {
  if (file !== undefined && isYaml(file)) return stringifyYaml(bundle, { lineWidth: 0 });
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

function readBundle(file: string): Record<string, unknown> {
  const text = readFileSync(file, "utf8");
  const value: unknown = isYaml(file) ? parseYaml(text) : JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Failure(`${file} is not a bundle (an object)`);
  return value as Record<string, unknown>;
}

async function call<T>(
  api: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ result: T; etag: string | null }> {
  const token = process.env.EDGE_ERRORS_TOKEN;
  if (token === undefined || token === "") throw new Failure("EDGE_ERRORS_TOKEN is not set (the API token)");
  const response = await fetch(`${api.replace(/\/+$/, "")}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let envelope: Envelope<T> | null = null;
  try {
    envelope = JSON.parse(text) as Envelope<T>;
  } catch {
    // not the API's envelope: reported below with the status
  }
  if (!response.ok || envelope === null || !envelope.success) {
    const messages = envelope?.errors.map((e) => `  ${e.code}: ${e.message}`).join("\n") ?? `  ${text.slice(0, 500)}`;
    throw new Failure(`${method} ${path} answered ${response.status}:\n${messages}`);
  }
  return { result: envelope.result, etag: response.headers.get("ETag") };
}

const SIGNS = { create: "+", update: "~", delete: "-" } as const;

/** The plan as a reader scans it: one line per change, grouped by section, then the count. */
export function describePlan(plan: Plan): string {
  const lines: string[] = [];
  for (const [section, changes] of Object.entries(plan.sections)) {
    lines.push(section);
    for (const change of changes) {
      const what =
        change.ref !== undefined
          ? `rule ${change.ref ?? "(new)"}`
          : change.id !== undefined
            ? `${section === "access_rules" ? "access rule" : "policy"} ${change.id ?? "(new)"}`
            : change.name !== undefined
              ? change.name
              : change.key !== undefined
                ? `tag ${change.key}`
                : section;
      const at = change.index === undefined ? "" : ` at ${change.index}`;
      const fields = change.fields === undefined ? "" : `: ${change.fields.join(", ")}`;
      lines.push(`  ${SIGNS[change.action]} ${change.action} ${what}${at}${fields}`);
    }
  }
  lines.push(plan.changes === 0 ? "No changes: the zone matches." : `${plan.changes} change(s).`);
  return `${lines.join("\n")}\n`;
}

interface Options {
  readonly api: string;
  readonly zone?: string;
  readonly args: readonly string[];
}

function options(argv: readonly string[]): Options {
  const args: string[] = [];
  let api = "http://localhost:8787";
  let zone: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--api" || arg === "--zone") {
      const value = argv[++i];
      if (value === undefined) throw new Failure(`${arg} needs a value\n${USAGE}`);
      if (arg === "--api") api = value;
      else zone = value;
    } else args.push(arg);
  }
  return { api, args, ...(zone === undefined ? {} : { zone }) };
}

function zoneOf(o: Options, bundle: Record<string, unknown>, file: string): string {
  const zone = o.zone ?? (typeof bundle.zone === "string" ? bundle.zone : undefined);
  if (zone === undefined) throw new Failure(`${file} names no zone: add "zone", or pass --zone <zone>`);
  return zone;
}

const bundlePath = (zone: string): string => `/zones/${encodeURIComponent(zone)}/bundle`;

/** Runs one command; the exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const o = options(argv);
  const [command, first, second] = o.args;
  if (command === "pull" && first !== undefined) {
    const { result } = await call<unknown>(o.api, "GET", bundlePath(first));
    const text = format(second, result);
    if (second === undefined) process.stdout.write(text);
    else writeFileSync(second, text);
    return 0;
  }
  if ((command === "plan" || command === "apply" || command === "drift") && first !== undefined) {
    const bundle = readBundle(first);
    const zone = zoneOf(o, bundle, first);
    const planned = await call<Plan>(o.api, "PUT", `${bundlePath(zone)}?plan=true`, bundle);
    process.stdout.write(describePlan(planned.result));
    if (command === "drift") return planned.result.changes === 0 ? 0 : 2;
    if (command === "plan" || planned.result.changes === 0) return 0;
    // Exactly the plan shown: refused (412) if the zone changed since it was made.
    const ifMatch: Record<string, string> = planned.etag === null ? {} : { "If-Match": planned.etag };
    await call<Plan>(o.api, "PUT", bundlePath(zone), bundle, ifMatch);
    process.stdout.write("Applied.\n");
    return 0;
  }
  throw new Failure(USAGE);
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
