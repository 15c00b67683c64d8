import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { callgrindTotal, timeDrivenShare } from "../../bench/lib/instructions.ts";
import { load } from "../../bench/lib/load.ts";
import { compare } from "../../bench/lib/micro.ts";
import { renderTable } from "../../bench/lib/report.ts";
import { parseWranglerToml, serveWorker } from "../../bench/lib/serve.ts";
import { median, quantile } from "../../bench/lib/stats.ts";
import { isSuiteModule } from "../../bench/lib/suite.ts";

const root = resolve(import.meta.dirname, "../..");

describe("bench/lib/stats", () => {
  it.each([
    [[5, 1, 3], 0.5, 3],
    [[1, 2, 3, 4], 0.5, 2],
    [[1, 2, 3, 4], 0.99, 4],
    [[7], 0.01, 7],
  ])("quantile(%j, %d) = %d", (values, q, expected) => {
    expect(quantile(values, q)).toBe(expected);
  });

  it("median of nothing is NaN, not a crash", () => {
    expect(median([])).toBeNaN();
  });
});

describe("bench/lib/serve parseWranglerToml", () => {
  it("reads the top-level compatibility date and only the [vars] table", () => {
    const parsed = parseWranglerToml(
      [
        'name = "x"',
        'compatibility_date = "2026-04-20"',
        "[vars]",
        'A = "1"',
        'B = "two words"',
        "[[kv_namespaces]]",
        'binding = "CONFIG"',
      ].join("\n"),
    );
    expect(parsed).toEqual({ compatibilityDate: "2026-04-20", vars: { A: "1", B: "two words" } });
  });

  it("refuses a file without a compatibility date", () => {
    expect(() => parseWranglerToml('[vars]\ncompatibility_date = "2026-04-20"')).toThrow(/compatibility_date/);
  });
});

describe("bench/lib/report renderTable", () => {
  it("shows only the columns some row fills, and marks targets", () => {
    const table = renderTable([
      { name: "base", baseline: true, reqPerSec: 1000, ratio: 1 },
      { name: "subject", reqPerSec: 800, ratio: 0.8, target: 0.85 },
    ]);
    const [header, , first, second] = table.split("\n");
    expect(header).toMatch(/name.*req\/s.*ratio.*target/);
    expect(header).not.toMatch(/ns\/op|p50/);
    expect(first).toMatch(/base \[baseline\].*1000.*1\.00×/);
    expect(second).toMatch(/subject.*800.*0\.80×.*MISS \(≥ 0\.85\)/);
  });
});

describe("bench/lib/report renderTable, instruction rows", () => {
  it("shows instructions per request and no load columns", () => {
    const table = renderTable([
      { name: "base", baseline: true, instructionsPerRequest: 850_000, ratio: 1 },
      { name: "subject", instructionsPerRequest: 1_000_000, ratio: 0.85, target: 0.85 },
    ]);
    const [header, , , second] = table.split("\n");
    expect(header).toMatch(/name.*instructions\/req.*ratio.*target/);
    expect(header).not.toMatch(/req\/s|p50/);
    expect(second).toMatch(/subject.*1000000.*0\.85×.*ok \(≥ 0\.85\)/);
  });
});

describe("bench/lib/report renderTable, rows at the load's rate", () => {
  it("shows the instructions and the ratio at the load's rate beside the counted ones", () => {
    const table = renderTable([
      { name: "base", baseline: true, instructionsPerRequest: 1_000_000, ratio: 1 },
      {
        name: "subject",
        instructionsPerRequest: 1_100_000,
        ratio: 0.91,
        instructionsAtLoadRate: 1_020_000,
        ratioAtLoadRate: 0.98,
        target: 0.95,
      },
    ]);
    const [header, , first, second] = table.split("\n");
    expect(header).toMatch(
      /instructions\/req .*ratio .*target .*instructions\/req at the load's rate.*ratio at the load's rate/,
    );
    expect(first).not.toMatch(/NaN/);
    expect(second).toMatch(/subject.*1100000.*0\.91×.*MISS \(≥ 0\.95\).*1020000.*0\.98×/);
  });
});

describe("bench/lib/instructions timeDrivenShare", () => {
  it("scales only the part a row spends on work done per unit of time by the ratio of the request rates", () => {
    // 60,000 instructions a request at 50 requests a second is 3 million a second: at 3,000 requests a second,
    // 1,000 a request.
    expect(timeDrivenShare(1_460_000, 1_400_000, 50, 3000)).toBeCloseTo(1_401_000, 6);
    // At the counted rate itself nothing moves.
    expect(timeDrivenShare(1_460_000, 1_400_000, 50, 50)).toBeCloseTo(1_460_000, 6);
  });
});

describe("bench/lib/instructions callgrindTotal", () => {
  it("reads the total of a dump, `summary:` or `totals:`", () => {
    const dump = [
      "# callgrind format",
      "version: 1",
      "events: Ir",
      "fn=(1) main",
      "0 12",
      "",
      "summary: 1019286346",
      "",
    ];
    expect(callgrindTotal(dump.join("\n"))).toBe(1_019_286_346);
    expect(callgrindTotal("events: Ir\ntotals: 42\n")).toBe(42);
  });

  it("is null for a file without a total (a dump cut short), never a number made up", () => {
    expect(callgrindTotal("events: Ir\nfn=(1) main\n0 12\n")).toBeNull();
    expect(callgrindTotal("")).toBeNull();
  });
});

describe("bench/lib/suite isSuiteModule", () => {
  it.each([
    [{ description: "x", run: async () => ({ rows: [] }) }, true],
    [{ run: async () => ({ rows: [] }) }, false],
    [{ description: "x" }, false],
    [null, false],
  ])("%j → %s", (candidate, expected) => {
    expect(isSuiteModule(candidate)).toBe(expected);
  });
});

describe("bench/lib/micro compare", () => {
  it("sees that doing 20× the work is slower", () => {
    const work = (n: number): number => {
      let x = 0;
      for (let i = 0; i < n; i++) x = (x * 31 + i) | 0;
      return x;
    };
    const result = compare(
      () => work(2000),
      () => work(100),
      { batch: 200, rounds: 5, warmup: 2 },
    );
    expect(result.subjectNs).toBeGreaterThan(result.baselineNs);
    expect(result.ratio).toBeLessThan(0.5);
  });
});

describe("bench/lib/serve + load (Miniflare on a port, autocannon)", () => {
  it("serves the baseline Worker on 127.0.0.1 and counts every response", { timeout: 30_000 }, async () => {
    const served = await serveWorker({ root, entry: "bench/baseline/worker.ts", durableObjects: {} });
    try {
      expect(served.url.hostname).toBe("127.0.0.1");
      const ok = await load({ url: served.url, connections: 2, durationSeconds: 1, serverCpu: served.cpuSeconds });
      expect(ok.requests).toBeGreaterThan(10);
      expect(ok.failures).toBe(0);
      expect(ok.statusCounts).toEqual({ "200": ok.requests });
      expect(ok.p50Ms).toBeGreaterThan(0);
      expect(ok.p99Ms).toBeGreaterThanOrEqual(ok.p50Ms);
      if (process.platform === "linux") {
        // The probe found this instance's own workerd process, and it worked for the requests.
        expect(await served.cpuSeconds()).toBeGreaterThan(0);
        expect(ok.serverCpuUsPerRequest).toBeGreaterThan(0);
      }
      // A status the run does not expect makes the run visibly broken.
      const wrong = await load({ url: served.url, connections: 1, durationSeconds: 1, expectStatus: 522 });
      expect(wrong.unexpectedStatus).toBe(wrong.requests);
      expect(wrong.failures).toBe(wrong.requests);
    } finally {
      await served.dispose();
    }
  });
});
