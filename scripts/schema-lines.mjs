#!/usr/bin/env node
// How many lines the API's contract takes: the OpenAPI fragments plus request validation (docs/development.md
// "Counting the request-schema lines"), at two commits, file by file, and the difference.
//   node scripts/schema-lines.mjs [from=9e46a98] [to=HEAD]
// Counted at each commit: every file of src/api/ whose name contains `openapi`, and every file of VALIDATION that
// exists there (a file moved or split between the commits counts on the side where it stands). 9e46a98 is the last
// commit before request schemas: every contract was written twice then, as a validator and as an OpenAPI fragment.
import { execFileSync } from "node:child_process";

/**
 * Request validation: the readers of request bodies, queries and paths, and the schemas (which are also the OpenAPI
 * components, answers included). Files that read a request beside their own engine (the replay, the zone list, the
 * asset routes, the tracer's run) are left out on both sides.
 */
export const VALIDATION = [
  // the kit
  "src/shared/validation.ts",
  "src/shared/schema.ts",
  "src/api/kit/body.ts",
  "src/api/kit/query.ts",
  // the zone document and its sections
  "src/state/zone/schema.ts",
  "src/state/zone/access-rules/validate.ts",
  "src/state/zone/custom-pages/validate.ts",
  "src/state/zone/url-normalization/validate.ts",
  "src/state/zone/rulesets/validate.ts",
  "src/state/zone/rulesets/overlay.ts",
  "src/state/zone/rulesets/ratelimit.ts",
  "src/state/zone/rulesets/serve-error.ts",
  // analytics, alerts, IP access rule listing
  "src/state/analytics/alerts.ts",
  "src/api/analytics/params.ts",
  "src/api/analytics/schemas.ts",
  "src/api/access-rules/query.ts",
  // tags
  "src/api/tags/validate.ts",
  "src/state/tags/policy.ts",
  "src/state/tags/tag-schema.ts",
  // the draft preview and the request tracer
  "src/api/preview/draft.ts",
  "src/api/explain/described.ts",
  "src/api/tracer/trace-body.ts",
];

const git = (...args) => execFileSync("git", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** Lines of each counted file at `commit` (path → lines). */
export function countAt(commit) {
  const present = git("ls-tree", "-r", "--name-only", commit, "src").split("\n");
  const openapi = present.filter((path) => path.startsWith("src/api/") && /openapi[^/]*\.ts$/.test(path));
  const counted = [...openapi, ...VALIDATION.filter((path) => present.includes(path))];
  const lines = new Map();
  for (const path of counted) {
    const text = git("show", `${commit}:${path}`);
    lines.set(path, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
  }
  return lines;
}

const sum = (lines, openapi) =>
  [...lines].filter(([path]) => /openapi[^/]*\.ts$/.test(path) === openapi).reduce((n, [, count]) => n + count, 0);

if (import.meta.url === `file://${process.argv[1]}`) {
  const [from = "9e46a98", to = "HEAD"] = process.argv.slice(2);
  const before = countAt(from);
  const after = countAt(to);
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(path) ?? 0;
    const b = after.get(path) ?? 0;
    console.log(`${String(a).padStart(6)} ${String(b).padStart(6)} ${String(b - a).padStart(6)}  ${path}`);
  }
  const row = (what, a, b) =>
    console.log(`${what.padEnd(11)} ${String(a).padStart(6)} → ${String(b).padStart(6)}: ${b - a}`);
  row("openapi", sum(before, true), sum(after, true));
  row("validation", sum(before, false), sum(after, false));
  row("total", sum(before, true) + sum(before, false), sum(after, true) + sum(after, false));
}
