import { resolve } from "node:path";
import { serializeConfig } from "miniflare";
import { describe, expect, it } from "vitest";
import { serveWithV8Flags, v8EventCounter, v8EventOf } from "../../bench/lib/instructions.ts";
import { serveWorker } from "../../bench/lib/serve.ts";
import { isV8Flag, v8FlagsOf, withV8Flags } from "../../bench/lib/workerd-config.ts";
import { directConfig, serveDirect } from "../../bench/lib/workerd-direct.ts";

const root = resolve(import.meta.dirname, "../..");

/** A Worker that says whether V8 exposed `gc` (what `--expose-gc` does), so a test sees a flag reach V8. */
const GC_PROBE = "export default { fetch() { return new Response(typeof gc); } };";

/** A config as Miniflare encodes it (its own `serializeConfig`), with a module big enough to span words. */
function miniflareMessage(): Uint8Array {
  const script = `export default { fetch() { return new Response(${JSON.stringify("x".repeat(5000))}); } };`;
  const config = {
    services: [
      { name: "main", worker: { modules: [{ name: "w.js", esModule: script }], compatibilityDate: "2026-04-20" } },
    ],
    sockets: [{ name: "http", address: "127.0.0.1:0", http: {}, service: { name: "main" } }],
  };
  return new Uint8Array(serializeConfig(config));
}

describe("bench/lib/workerd-config withV8Flags", () => {
  it("sets Config.v8Flags in Miniflare's binary config, and nothing is set before", () => {
    const message = miniflareMessage();
    expect(v8FlagsOf(message)).toBeNull();
    const patched = withV8Flags(message, ["--no-flush-bytecode", "--trace-gc", "--max-lazy"]);
    expect(v8FlagsOf(patched)).toEqual(["--no-flush-bytecode", "--trace-gc", "--max-lazy"]);
    // The rest of the message is where it was: the first segment grew by the appended words only.
    expect(patched.byteLength).toBeGreaterThan(message.byteLength);
    expect(v8FlagsOf(withV8Flags(message, []))).toEqual([]);
  });

  it("refuses what is not a V8 flag, a message that sets the field already, and bytes that are no message", () => {
    expect(isV8Flag("--semi-space-size=16")).toBe(true);
    expect(isV8Flag("--x'; rm -rf /")).toBe(false);
    expect(() => withV8Flags(miniflareMessage(), ["no-dashes"])).toThrow(/not a V8 flag/);
    const once = withV8Flags(miniflareMessage(), ["--trace-gc"]);
    expect(() => withV8Flags(once, ["--trace-gc"])).toThrow(/already sets v8Flags/);
    expect(() => withV8Flags(new Uint8Array(3), [])).toThrow(/not a Cap'n Proto message/);
    expect(() => withV8Flags(new Uint8Array(16), [])).toThrow(/not a Cap'n Proto message/);
  });
});

describe("bench/lib/instructions v8EventOf", () => {
  // Lines as workerd's V8 printed them in the probes of docs/benchmarks.md ("The performance-targets work (2026-11-24): the two instruction levels").
  it.each([
    [
      "[7304:0x7221bfd08000]     4582 ms: Scavenge 2.1 (3.2) -> 1.8 (3.0) MB, pooled: 1.0 MB, 47.44 / 0.00 ms (average mu = 1.000, current mu = 1.000) allocation failure; ",
      "scavenges",
    ],
    ["[1:0x1]       12 ms: Minor Mark-Sweep 2.1 (3.2) -> 1.8 (3.0) MB, 1.0 / 0.0 ms allocation failure;", "scavenges"],
    [
      "[1:0x1]     3012 ms: Mark-Compact 7.1 (8.0) -> 5.2 (7.5) MB, 20.1 / 0.0 ms  (average mu = 0.9) finalize;",
      "fullGcs",
    ],
    [
      "[compiling method 0x139b00621ad5 <JSFunction evaluate (sfi = 0x139b005397a9)> (target TURBOFAN_JS), mode: ConcurrencyMode::kConcurrent]",
      "compiles",
    ],
    [
      "[completed compiling 0x139b00dd7e75 <JSFunction evaluate (sfi = 0x139b005397a9)> (target MAGLEV) - took 0.004, 149.094, 0.235 ms]",
      "compiles",
    ],
    ["[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x1 <JSFunction f>]", "deopts"],
    [
      "[marking 0x139b00624bad <JSFunction isWordChar (sfi = 0x139b004c0191)> for optimization to MAGLEV, ConcurrencyMode::kConcurrent, reason: hot and stable]",
      null,
    ],
    ['{"level":"error","event":"edge.error","code":522}', null],
  ] as const)("%s → %s", (line, kind) => {
    expect(v8EventOf(line)).toBe(kind);
  });

  it("counts per kind and starts again after take()", () => {
    const counter = v8EventCounter();
    counter.onLine("[1:0x1]  5 ms: Scavenge 2.1 (3.2) -> 1.8 (3.0) MB, 1.0 / 0.0 ms allocation failure;");
    counter.onLine("[1:0x2]  6 ms: Scavenge 2.1 (3.2) -> 1.8 (3.0) MB, 1.0 / 0.0 ms allocation failure;");
    counter.onLine(
      "[compiling method 0x1 <JSFunction f (sfi = 0x2)> (target MAGLEV), mode: ConcurrencyMode::kConcurrent]",
    );
    counter.onLine("ok");
    expect(counter.take()).toEqual({ scavenges: 2, fullGcs: 0, compiles: 1, deopts: 0 });
    expect(counter.take()).toEqual({ scavenges: 0, fullGcs: 0, compiles: 0, deopts: 0 });
  });
});

describe("bench/lib/workerd-direct directConfig", () => {
  it("writes one Worker, one socket and the flags in workerd's text format", () => {
    const text = directConfig("2026-04-20", ["--trace-gc"]);
    expect(text).toContain('compatibilityDate = "2026-04-20"');
    expect(text).toContain('v8Flags = ["--trace-gc"]');
    expect(text).toContain('esModule = embed "worker.js"');
    expect(() => directConfig("April", [])).toThrow(/compatibility date/);
    expect(() => directConfig("2026-04-20", ['--x"]'])).toThrow(/not a V8 flag/);
  });
});

describe("V8 flags reach the Worker's isolate (real workerd)", () => {
  it(
    "through Miniflare: --expose-gc gives the Worker `gc`; without it there is none",
    { timeout: 60_000 },
    async () => {
      const plain = await serveWorker({ root, script: GC_PROBE, durableObjects: {} });
      try {
        expect(await (await fetch(plain.url)).text()).toBe("undefined");
      } finally {
        await plain.dispose();
      }
      const flagged = await serveWithV8Flags({ root, script: GC_PROBE, durableObjects: {} }, ["--expose-gc"]);
      try {
        expect(await (await fetch(flagged.url)).text()).toBe("function");
      } finally {
        await flagged.dispose();
      }
    },
  );

  it("workerd started directly, without Miniflare, with and without the flag", { timeout: 60_000 }, async () => {
    for (const [v8Flags, expected] of [
      [[], "undefined"],
      [["--expose-gc"], "function"],
    ] as const) {
      const direct = await serveDirect({ root, script: GC_PROBE, compatibilityDate: "2026-04-20", v8Flags });
      try {
        expect(await (await fetch(direct.url)).text()).toBe(expected);
      } finally {
        await direct.dispose();
      }
    }
  });

  it("hands V8's --trace-gc lines to onOutput as they come", { timeout: 60_000 }, async () => {
    const lines: string[] = [];
    const script = "export default { fetch() { gc(); return new Response('ok'); } };";
    const direct = await serveDirect({
      root,
      script,
      compatibilityDate: "2026-04-20",
      v8Flags: ["--expose-gc", "--trace-gc"],
      onOutput: (line) => lines.push(line),
    });
    try {
      await (await fetch(direct.url)).text();
      await expect.poll(() => lines.some((line) => /Mark-Compact/.test(line)), { timeout: 5_000 }).toBe(true);
    } finally {
      await direct.dispose();
    }
  });
});
