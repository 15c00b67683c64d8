// Type-aware linting (typescript-eslint `recommendedTypeChecked`) for the Worker, its tests, the benchmarks and
// the Node scripts. `npm run lint` runs it with the import-cycle check and Prettier's check.
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // Build and tool output at any depth (`**/`): a workspace package's own `dist/` (packages/client `npm run build`)
    // holds .d.ts files no tsconfig includes, which the type-aware parser refuses. .prettierignore lists the same;
    // test/node/lint-ignores.test.ts checks both.
    ignores: [
      "**/node_modules/",
      "**/dist/",
      "**/.wrangler/",
      "**/coverage/",
      "**/*.tsbuildinfo",
      "bench/results/",
      "test/artifacts/",
      ".prof/",
      "worker-configuration.d.ts",
    ],
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.json", "./tsconfig.node.json", "./packages/client/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // `_`-prefixed parameters are the documented way to keep a handler's signature.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Handlers are async by contract (they return Promise<Response>) even when one branch awaits nothing.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // One request context and option objects instead of long positional lists (docs/architecture.md "One request
    // context"): no function of the Worker takes more than five parameters.
    files: ["src/**/*.ts"],
    rules: { "max-params": ["error", 5] },
  },
);
