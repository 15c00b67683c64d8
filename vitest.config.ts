import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Three projects (toolchain.md §2):
// - "workers": tests run inside workerd with the real Worker, real KV and real SQLite Durable Objects.
// - "node": tests that need Node (servers on loopback, Miniflare driven from outside).
// - "browser": the real Worker on 127.0.0.1 (Miniflare) driven by Debian's chromium through playwright-core
//   (docs/errors.md "Browser tests"); its global setup installs chromium with apt when it is missing.
export default defineConfig({
  test: {
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
                // contract §3): these hostnames never reach the network (src/origin/faults.ts).
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
