import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Two projects (toolchain.md §2):
// - "workers": tests run inside workerd with the real Worker, real KV and real SQLite Durable Objects.
// - "node": tests that need Node (servers on loopback, Miniflare driven from outside).
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // Tests get a known admin token; no test reads a real .dev.vars.
              bindings: { ADMIN_TOKEN: "test-admin-token" },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
        },
      },
    ],
  },
});
