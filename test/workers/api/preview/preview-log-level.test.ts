/**
 * The level of a preview's `edge_error` lines (docs/configuration.md "Log levels"): a draft preview
 * (`POST /zones/{zone}/preview`) of a described failure shows an error on request, nothing failed, so each of its
 * runs logs at `info`, never at `error` or `warn`, whatever the described code; the level comes from where the error
 * was generated (the typed `preview` field of the pipeline's event), not from its cause text.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { flush } from "../../../../src/errors/error-log";
import { putZone, uniqueZone } from "../../support/origin";
import { apiOk } from "../../support/envelope";

afterEach(() => {
  flush(); // no coalescing window left open for the next test
  vi.restoreAllMocks();
});

/** The `edge_error` lines written through one console method. */
function edgeErrors(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .flatMap((call) => String(call[0]).split("\n"))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.event === "edge_error");
}

async function draftPreview(zone: string, request: Record<string, unknown>): Promise<void> {
  await apiOk("POST", `/zones/${zone}/preview`, { request });
}

describe("a draft preview's edge_error lines", () => {
  it.each([
    ["a described 1101", { path: "/", code: 1101 }],
    ["a described 500", { path: "/", code: 500 }],
    ["a described refused origin (521)", { path: "/", origin: { failure: "refused" } }],
  ])("%s writes its lines at info, none at error or warn", async (_what, request) => {
    const zone = uniqueZone("preview-log-level");
    await putZone(zone, { origin: "http://127.0.0.1:9" });
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await draftPreview(zone, request);
    flush(); // lines waiting in a coalescing window are written now
    expect(edgeErrors(error)).toEqual([]);
    expect(edgeErrors(warn)).toEqual([]);
    const lines = edgeErrors(log);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.zone).toBe(zone);
  });
});
