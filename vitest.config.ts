import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Four projects (toolchain.md §2):
// - "workers": tests run inside workerd with the real Worker, real KV and real SQLite Durable Objects.
// - "node": tests that need Node (servers on loopback, Miniflare driven from outside).
// - "browser": the real Worker on 127.0.0.1 (Miniflare) driven by Debian's chromium through playwright-core
//   (docs/errors.md "Browser tests"); its global setup installs chromium with apt when it is missing.
// - "client": the client package's tests (packages/client/test, docs/client.md).
/**
 * Quiet by default (issue 21): workerd reports on its stderr, as log entries of its own, events the failure-injection
 * tests cause on purpose, and the pool (@cloudflare/vitest-pool-workers `handleStructuredLogs`) copies each entry to
 * this process's stdout or stderr in one write. Only these known entries are dropped, whole; anything else workerd says is
 * kept. Measured on a passing run: 1,040 refused connects (521 tests), each followed by workerd's own
 * "Network connection lost" uncaught-promise pair, and one WebSocket disconnect per test file (toolchain.md §8.9).
 * `WORKERD_NOISE=1 npx vitest run` shows them again.
 */
const WORKERD_NOISE = [
  // Not workerd: wrangler's config reader, once per test file when a local .dev.vars exists (after `npm run dev`);
  // the tests' bindings below override what it holds.
  /^Using secrets defined in \.dev\.vars\n?$/,
  /^exception = kj\/async-io-unix\.c\+\+:\d+: disconnected: connect\(\): Connection refused\nstack: [^\n]*\n?$/,
  /^uncaught exception; source = Uncaught \(in promise\); stack = Error: Network connection lost\.\n?$/,
  /^uncaught exception; exception = workerd\/jsg\/[^\n]*: disconnected: jsg\.Error: Network connection lost\.\nstack: [^\n]*\n?$/,
  /^exception = workerd\/api\/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected\nstack: [^\n]*\n?$/,
  /^exception = workerd\/api\/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected\n?$/,
];

/** Whether one write to stdout or stderr is a known workerd entry caused by a test on purpose. Exported for its test. */
export function isWorkerdNoise(chunk: string): boolean {
  return WORKERD_NOISE.some((pattern) => pattern.test(chunk));
}

if (process.env.WORKERD_NOISE !== "1") {
  // The pool writes workerd's error/warn entries to stderr and the others (these, mostly) to stdout.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    const filtered: typeof stream.write = (chunk: string | Uint8Array, ...rest: never[]) =>
      typeof chunk === "string" && isWorkerdNoise(chunk) ? true : write(chunk, ...rest);
    stream.write = filtered;
  }
}

export default defineConfig({
  test: {
    // A passing test's console output is not shown; a failing test's is (vitest 4 `silent: "passed-only"`).
    silent: "passed-only",
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // Tests get a known admin token; no test reads a real .dev.vars.
              bindings: {
                ADMIN_TOKEN: "test-admin-token",
                // The test origins listen on 127.0.0.1, and an origin is never a host of API_HOSTS (contract §3, on
                // any port): the tests reach the management API as `localhost` only.
                API_HOSTS: "localhost",
                // Test-only fault injection for origin failures that must never leave loopback (522, 523, 1016;
                // contract §3): these hostnames never reach the network (src/edge/origin/faults.ts).
                ORIGIN_FAULTS: JSON.stringify({
                  "nxdomain.test": "unresolvable",
                  "unroutable.test": "unreachable",
                  "blackhole.test": "blackhole",
                }),
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          // Test origins on 127.0.0.1 (healthy, slow, hanging, resetting, garbage, TLS...): test/servers/.
          globalSetup: ["./test/servers/global-setup.ts"],
        },
      },
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          // These tests start real processes (scripts/dev.mjs, check-config under tsx: ~4 s of wall clock alone, far
          // more on a loaded 2-core machine); each bounds its own child, so vitest's 5 s default only made them flaky.
          testTimeout: 60_000,
        },
      },
      {
        // The client package (packages/client, docs/client.md): its own tests, on Node. ky.test.ts and packed.test.ts
        // serve the real Worker and run npm and tsc in child processes: slower than vitest's 5 s default on a loaded
        // 2-core machine.
        test: {
          name: "client",
          include: ["packages/client/test/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/browser/ensure-chromium.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
