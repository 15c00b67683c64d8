import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig, type Plugin } from "vitest/config";

// Five projects (docs/development.md "Tests inside workerd"):
// - "workers": tests run inside workerd with the real Worker, real KV and real SQLite Durable Objects, each file in a
//   workerd of its own.
// - "workers-shared": the `workers` files that touch no storage and no Worker entry (SHARING_WORKERD below), several
//   files to a workerd.
// - "node": tests that need Node (servers on loopback, Miniflare driven from outside).
// - "browser": the real Worker on 127.0.0.1 (Miniflare) driven by Debian's chromium through playwright-core
//   (docs/errors.md "Browser tests"); its global setup installs chromium with apt when it is missing.
// - "client": the client package's tests (packages/client/test, docs/client.md).
/**
 * Quiet by default: workerd reports on its stderr, as log entries of its own, events the failure-injection tests cause
 * on purpose, and the pool (@cloudflare/vitest-pool-workers `handleStructuredLogs`) copies each entry to this
 * process's stdout or stderr in one write. Only these known entries are dropped, whole; anything else workerd says is
 * kept. Measured on a passing run: 1,040 refused connects (521 tests), each followed by workerd's own
 * "Network connection lost" uncaught-promise pair, and one WebSocket disconnect per test file; then the misbehaving
 * origins of test/servers/ (a reset, a premature end, a plain-HTTP or self-signed TLS origin, an invalid status line or
 * header), which workerd reports with an id (`wdErrId`) and then twice more as an "internal error" under that
 * reference. An "internal error" is dropped only when its reference is the id of such a known entry: any other stays.
 * `WORKERD_NOISE=1 npx vitest run` shows them again (test/node/workerd-noise.test.ts checks what is dropped and kept).
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
  // test/servers/ raw origins that reset the connection or end it early.
  /^exception = kj\/async-io-unix\.c\+\+:\d+: disconnected: ::read\(fd, buffer, maxBytes\): Connection reset by peer\nstack: [^\n]*\n?$/,
  // A switch-origin.ts origin in `reset` mode resets at accept, which workerd may see while still connecting.
  /^exception = kj\/async-io-unix\.c\+\+:\d+: disconnected: connect\(\): Connection reset by peer\nstack: [^\n]*\n?$/,
  /^exception = kj\/async-io\.c\+\+:\d+: disconnected: stream disconnected prematurely\nstack: [^\n]*\n?$/,
  // Not workerd: the runtime's warning when a test sends a non-ASCII Accept on purpose (test/workers/errors/).
  /^A header value for "Accept" contains non-ASCII characters: [^\n]*\n?$/,
];

/** A misbehaving test origin's failure as workerd reports it, under an id its "internal error" entries repeat. */
const WORKERD_NOISE_WITH_ID = [
  /^e = kj\/compat\/tls\.c\+\+:\d+: failed: (?:OpenSSL error; message = [^\n]*|TLS peer's certificate is not trusted; reason = [^\n]*)\nstack: [^\n]*; sentryErrorContext = jsgInternalError; wdErrId = (\w+)\n?$/,
  /^e = kj\/compat\/http\.c\+\+:\d+: failed: protocolError\.description = [^\n]*\nstack: [^\n]*; sentryErrorContext = jsgInternalError; wdErrId = (\w+)\n?$/,
];

/** workerd's two "internal error" entries that follow such a failure, with its id as `reference`. */
const INTERNAL_ERROR_ENTRIES = [
  /^uncaught exception; source = Uncaught \(in promise\); stack = Error: internal error; reference = (\w+)\n?$/,
  /^uncaught exception; exception = workerd\/jsg\/[^\n]*: failed: jsg\.Error: internal error; reference = (\w+)\nstack: [^\n]*\n?$/,
];

/** The ids of the known failures seen so far (bounded: the oldest go first). */
const knownFailureIds = new Set<string>();

/** Whether one write to stdout or stderr is a known workerd entry caused by a test on purpose. Exported for its test. */
export function isWorkerdNoise(chunk: string): boolean {
  if (WORKERD_NOISE.some((pattern) => pattern.test(chunk))) return true;
  for (const pattern of WORKERD_NOISE_WITH_ID) {
    const id = pattern.exec(chunk)?.[1];
    if (id === undefined) continue;
    knownFailureIds.add(id);
    if (knownFailureIds.size > 1_000) knownFailureIds.delete(knownFailureIds.values().next().value ?? id);
    return true;
  }
  return INTERNAL_ERROR_ENTRIES.some((pattern) => {
    const reference = pattern.exec(chunk)?.[1];
    return reference !== undefined && knownFailureIds.has(reference);
  });
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

/**
 * The packages that code running inside workerd imports (the Worker's dependencies, then the tests' own): each is
 * bundled into one module for the workers project. A package missing here still works, only as many modules.
 */
const BUNDLED_IN_WORKERD = [
  "zod/mini",
  "@opentelemetry/api",
  "@opentelemetry/otlp-transformer",
  "@opentelemetry/resources",
  "@opentelemetry/semantic-conventions",
  "re2js",
  "itty-router",
  "@bufbuild/protobuf",
  "@bufbuild/protobuf/wire",
  "@bufbuild/protobuf/wkt",
  "fast-check",
  "cloudflare",
  "yaml",
  "structured-headers",
  "eventsource-parser",
  "standardwebhooks",
  "openai",
  "@anthropic-ai/sdk",
  "eventsource",
];

/**
 * Smaller modules for workerd: every module a `workers` test file imports is sent to its workerd as code with its
 * source map inlined (base64), serialised and compressed by this process and parsed there, for every file again. Vite's
 * map of a module carries the module's whole source (`sourcesContent`) and each prebundled package's map is as long as
 * its code: importing the Worker sent 11.0 MB per test file, 7.2 MB of it maps. Stack traces and vitest's code frames
 * need neither (positions come from `mappings`; the frame is read from the file on disk), so the source is left out,
 * and a prebundled package (`BUNDLED_IN_WORKERD`) keeps no map: a frame inside one names the bundle's file and line.
 * Measured: 4.8 MB per file (docs/development.md "How long the suite takes").
 */
function smallerModuleMaps(): Plugin {
  return {
    name: "edge-errors:smaller-module-maps",
    configureServer(server) {
      for (const environment of Object.values(server.environments)) {
        const transformRequest = environment.transformRequest.bind(environment);
        environment.transformRequest = async (url) => {
          const result = await transformRequest(url);
          const map = result?.map;
          if (result && map && "version" in map) {
            // `{ mappings: "" }` is Vite's "no map": vitest then inlines none.
            if (url.includes("/node_modules/")) result.map = { mappings: "" };
            else map.sourcesContent = [];
          }
          return result;
        };
      }
    },
  };
}

/**
 * The `workers` test files that share a workerd (vitest `isolate: false`, project "workers-shared"): a lane starts one
 * workerd and runs these files in it one after another, where every other file starts its own (about 2 s of wall clock
 * each on a loaded 2-core machine, docs/development.md "How long the suite takes"). A file belongs here only when it
 * touches no storage (no binding, no Durable Object, no `cloudflare:test` or `cloudflare:workers`), sends nothing
 * through the Worker, stubs or mocks nothing and holds no state a later file could see: pure functions of src/ and
 * objects it makes itself. A new file runs alone unless it is listed.
 */
const SHARING_WORKERD = [
  "test/workers/rules/{conformance,errors,fields,header-map,language-2026,limits,parser,properties}.test.ts",
  "test/workers/rules/{regex-set,regex,rule-index,semantics,worst-case}.test.ts",
  "test/workers/shared/{accept-language,bounded-cache,client-address,country,crypto,html-escape,ray,schema}.test.ts",
  "test/workers/shared/{timeout,traffic-in-flight,url-normalise,validation}.test.ts",
  "test/workers/errors/{catalog,guidance,html,occurrence-template,render-markdown,where-it-broke,yaml}.test.ts",
  "test/workers/edge/agents/{rpc-scan,units}.test.ts",
  "test/workers/edge/origin/units.test.ts",
  "test/workers/edge/request-phases/{access-rules,isolate-counters}.test.ts",
  "test/workers/api/custom-pages/inline.test.ts",
  "test/workers/api/tags/validate.test.ts",
  "test/workers/state/rate-limiter/lease.test.ts",
  "test/workers/state/tags/page-budget.test.ts",
];

/** A project of tests inside workerd (both share everything but which files and whether each file has its own). */
function workersProject(name: string, include: string[], exclude: string[], isolate: boolean) {
  return {
    plugins: [
      smallerModuleMaps(),
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Tests get a known admin token; no test reads a real .dev.vars.
          bindings: {
            ADMIN_TOKEN: "test-admin-token",
            // The test origins listen on 127.0.0.1, and an origin is never a host of API_HOSTS (docs/origin.md, on
            // any port): the tests reach the management API as `localhost` only.
            API_HOSTS: "localhost",
            // Alert webhooks to the tests' receiver on 127.0.0.1 (docs/analytics.md "Webhook targets").
            WEBHOOK_LOOPBACK: "allow",
            // The rate counter's budget at its documented maximum (docs/configuration.md), not the 1 s default:
            // a test that expects 1015 must not pass the request uncounted because a loaded machine was slow to
            // answer (docs/development.md "Tests that do not depend on the clock").
            RATE_LIMIT_TIMEOUT_MS: "10000",
            // Test-only fault injection for origin failures that must never leave loopback (522, 523, 1016;
            // docs/origin.md): these hostnames never reach the network (src/edge/origin/faults.ts).
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
      name,
      include,
      exclude,
      isolate,
      // Each test file gets a new workerd whose module runner asks this process for every module it imports, one
      // round trip each, in import order. The Worker alone pulled 582 modules, 315 of them from these packages
      // (zod/mini as 90 files, OpenTelemetry's encoder as ~220): bundled once per run (Vite's dependency
      // optimizer, esbuild), each package is one module (docs/development.md "How long the suite takes").
      deps: { optimizer: { ssr: { enabled: true, include: [...BUNDLED_IN_WORKERD] } } },
      // A margin, not a measure: no test here asserts by vitest's timeout, and vitest's 5 s default failed tests
      // that wait on real timeouts (an origin's read timeout, a body wait) when other processes held both cores
      // (docs/development.md "Tests that do not depend on the clock").
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // Test origins on 127.0.0.1 (healthy, slow, hanging, resetting, garbage, TLS...): test/servers/.
      globalSetup: ["./test/servers/global-setup.ts"],
    },
  };
}

export default defineConfig({
  test: {
    // One and a half test files per core: vitest's default for `vitest run` is one fewer than the cores, which on a
    // 2-core machine ran every file alone, and with one per core a core idled while a file waited on a timeout, an
    // origin or a browser (docs/development.md "How long the suite takes").
    maxWorkers: "150%",
    // A passing test's console output is not shown; a failing test's is (vitest 4 `silent: "passed-only"`).
    silent: "passed-only",
    // The default reporter gives a passing test a line of its own when it took longer than this: at vitest's 300 ms,
    // on this 2-core machine, most of a passing run's lines (116 of 176 for test/workers/errors and
    // test/workers/edge/origin, 16 of them over 1 s). A failing test always has its line, whatever its time. Measured
    // with this and the filter above: `npm test` printed 231 lines, 58 of them one failing test's report and its
    // file's listing, so ~175 for a passing run (393 before).
    slowTestThreshold: 5_000,
    projects: [
      workersProject("workers", ["test/workers/**/*.test.ts"], SHARING_WORKERD, true),
      workersProject("workers-shared", SHARING_WORKERD, [], false),
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
