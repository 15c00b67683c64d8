/**
 * A preview's log lines (docs/configuration.md "Log levels"): a draft preview (`POST /zones/{zone}/preview`) or a
 * trace (the request tracer) of a described failure shows an error on request, nothing failed, so none of its runs
 * writes an `edge_error` line, at any level, whatever the described code: each writes an `error_preview` line at
 * info. What decides is where the error was generated (the typed `preview` field of the pipeline's event), not its
 * cause text.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { flush } from "../../../../src/errors/error-log";
import { putZone, uniqueZone } from "../../support/origin";
import { apiOk, entrypoint } from "../../support/envelope";

afterEach(() => {
  flush(); // no coalescing window left open for the next test
  vi.restoreAllMocks();
});

/** The JSON lines written through one console method. */
function written(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .flatMap((call) => String(call[0]).split("\n"))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function spies() {
  return {
    error: vi.spyOn(console, "error").mockImplementation(() => undefined),
    warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
    log: vi.spyOn(console, "log").mockImplementation(() => undefined),
  };
}

/** No edge_error line on any stream; the error_preview lines, all at info, each of `zone`. */
function previewLines(zone: string, { error, warn, log }: ReturnType<typeof spies>): Record<string, unknown>[] {
  flush(); // lines waiting in a coalescing window are written now
  expect(written(error)).toEqual([]);
  expect(written(warn)).toEqual([]);
  expect(written(log).filter((l) => l.event === "edge_error")).toEqual([]);
  const lines = written(log).filter((l) => l.event === "error_preview");
  for (const line of lines) expect(line.zone).toBe(zone);
  return lines;
}

describe("a draft preview's log lines", () => {
  it.each([
    ["a described 1101", { path: "/", code: 1101 }, 1101],
    ["a described 500", { path: "/", code: 500 }, 500],
    ["a described refused origin (521)", { path: "/", origin: { failure: "refused" } }, 521],
  ])("%s writes no edge_error: an error_preview line at info per run", async (_what, request, code) => {
    const zone = uniqueZone("preview-log-level");
    await putZone(zone, { origin: "http://127.0.0.1:9" });
    const console = spies();
    await apiOk("POST", `/zones/${zone}/preview`, { request });
    const lines = previewLines(zone, console);
    expect(lines.map((l) => l.code)).toEqual([code, code, code, code, code]);
  });
});

describe("the request tracer's log lines", () => {
  it("a traced block writes no edge_error: error_preview lines at info", async () => {
    const account = "c".repeat(31) + "3";
    const zone = uniqueZone("tracer-log");
    await putZone(zone, { origin: "http://127.0.0.1:9", account: { id: account } });
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ expression: "true", action: "block", description: "everything" }],
    });
    const console = spies();
    await apiOk("POST", `/accounts/${account}/request-tracer/trace`, { method: "GET", url: `http://${zone}/` });
    const lines = previewLines(zone, console);
    expect(lines.length).toBeGreaterThan(0); // one per format the trace runs
    expect(new Set(lines.map((l) => l.code))).toEqual(new Set([1020]));
  });
});
