/**
 * The edge_error log line (src/errors/error-log.ts): one JSON line per generated error, written at once
 * when no window is open, coalesced during a burst and written when the window closes (one write per stream, one
 * line per error), never dropped.
 */
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSettings } from "../../../src/shared/settings";
import { edgeErrorLine, flush, levelOf, logEdgeError, type EdgeErrorLine } from "../../../src/errors/error-log";
import { ADMIN, loopback, ports, putZone, uniqueZone } from "../support/origin";
import { apiFetch } from "../support/envelope";

afterEach(() => {
  flush(); // no window left open for the next test
  vi.restoreAllMocks();
});

/** An invocation whose `waitUntil` promises the test can await, like the runtime does after the response. */
function invocation(): { waitUntil(promise: Promise<unknown>): void; settled(): Promise<unknown> } {
  const pending: Promise<unknown>[] = [];
  return { waitUntil: (promise) => void pending.push(promise), settled: () => Promise.all(pending) };
}

function spies() {
  return {
    error: vi.spyOn(console, "error").mockImplementation(() => undefined),
    warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
    log: vi.spyOn(console, "log").mockImplementation(() => undefined),
  };
}

/** Every JSON line written to a spy, in order (a call may hold several lines). */
function lines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .flatMap((call) => String(call[0]).split("\n"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// 500: the service's own fault, written with console.error (levelOf).
const line = (ray: string, status = 500, code = status): EdgeErrorLine => ({
  ray,
  zone: "shop.example",
  code,
  status,
  cause: `cause of ${ray}`,
  preview: false,
});

describe("edgeErrorLine", () => {
  it("is exactly JSON.stringify of the object, also for hostile zones and causes", () => {
    for (const cause of [undefined, 'q " b \\ n \n t \t', "☃ \u0000 \u2028 \ud800", ""]) {
      for (const preview of [false, true]) {
        const e = { ray: "0123456789abcdef", zone: 'odd"zone\\.example', code: 1015, status: 429, cause, preview };
        const expected = JSON.stringify({ event: "edge_error", ...e, cause: cause ?? null });
        expect(edgeErrorLine(e)).toBe(expected);
      }
    }
  });
});

describe("coalescing (unit)", () => {
  it("a lone error is written at once; errors inside the window wait and are written, in order, when it closes", async () => {
    const { error, log } = spies();
    const first = invocation();
    logEdgeError(line("a0"), 50, first, 1_000);
    expect(lines(error).map((l) => l.ray)).toEqual(["a0"]);
    for (let i = 1; i <= 5; i++) logEdgeError(line(`a${i}`), 50, invocation(), 1_000 + i);
    logEdgeError(line("b1", 403, 1020), 50, invocation(), 1_010);
    expect(error).toHaveBeenCalledTimes(1); // nothing more yet
    expect(log).not.toHaveBeenCalled();
    await first.settled(); // the window closes in the invocation that opened it
    expect(error).toHaveBeenCalledTimes(2); // one write for the five waiting 500 lines
    expect(lines(error).map((l) => l.ray)).toEqual(["a0", "a1", "a2", "a3", "a4", "a5"]);
    expect(lines(log)).toEqual([{ event: "edge_error", ...line("b1", 403, 1020) }]);
    // After the window: at once again.
    logEdgeError(line("c0"), 50, invocation(), 2_000);
    expect(lines(error).at(-1)?.ray).toBe("c0");
  });

  it("a window whose flush never came is closed by the next line after twice its length", () => {
    const { error } = spies();
    logEdgeError(line("d0"), 50, { waitUntil: () => undefined }, 10_000); // its flush is lost
    logEdgeError(line("d1"), 50, invocation(), 10_040); // inside: waits
    expect(lines(error).map((l) => l.ray)).toEqual(["d0"]);
    logEdgeError(line("d2"), 50, invocation(), 10_101); // past 2 × 50 ms: d1 written, then d2 at once
    expect(lines(error).map((l) => l.ray)).toEqual(["d0", "d1", "d2"]);
  });

  it("0 ms or no invocation: every line at once", () => {
    const { error } = spies();
    logEdgeError(line("e0"), 0, invocation(), 20_000);
    logEdgeError(line("e1"), 0, invocation(), 20_001);
    logEdgeError(line("e2"), 50, undefined, 20_002);
    logEdgeError(line("e3"), 50, undefined, 20_003);
    expect(error).toHaveBeenCalledTimes(4);
    expect(lines(error).map((l) => l.ray)).toEqual(["e0", "e1", "e2", "e3"]);
  });
});

describe("ERROR_LOG_COALESCE_MS", () => {
  it("whole milliseconds 0..1000, else the default 50", () => {
    const ms = (value?: string) => parseSettings({ ERROR_LOG_COALESCE_MS: value }).errorLogCoalesceMs;
    expect(ms()).toBe(50);
    expect(ms("0")).toBe(0);
    expect(ms(" 20 ")).toBe(20);
    expect(ms("1000")).toBe(1000);
    for (const bad of ["", "-1", "1001", "5000", "1e3", "0x10", "20ms", "3.5", "abc"]) expect(ms(bad), bad).toBe(50);
  });
});

describe('log levels (docs/configuration.md "Log levels")', () => {
  it.each([
    [500, 500, false, "error"],
    [1101, 500, false, "error"],
    [1102, 503, false, "error"],
    [522, 522, false, "warn"],
    [521, 521, false, "warn"],
    [502, 502, false, "warn"],
    [1016, 530, false, "warn"],
    [1020, 403, false, "info"],
    [1015, 429, false, "info"],
    [1001, 409, false, "info"],
    // A preview is info whatever its code: shown on request, nothing failed.
    [522, 522, true, "info"],
    [500, 500, true, "info"],
    [1101, 500, true, "info"],
  ] as const)("%d (%d, preview %s) → %s", (code, status, preview, level) => {
    expect(levelOf({ code, status, preview })).toBe(level);
  });

  it("a window keeps each level's lines on its own stream, in order", async () => {
    const { error, warn, log } = spies();
    const first = invocation();
    logEdgeError(line("w0", 522), 50, first, 30_000);
    logEdgeError(line("w1", 500), 50, invocation(), 30_001);
    logEdgeError(line("w2", 522), 50, invocation(), 30_002);
    logEdgeError(line("w3", 403, 1020), 50, invocation(), 30_003);
    await first.settled();
    expect(lines(warn).map((l) => l.ray)).toEqual(["w0", "w2"]);
    expect(lines(error).map((l) => l.ray)).toEqual(["w1"]);
    expect(lines(log).map((l) => l.ray)).toEqual(["w3"]);
  });
});

describe("through the Worker", () => {
  it("the README's first curl (a preview of 522) is info, not an error", async () => {
    const { error, warn, log } = spies();
    const res = await exports.default.fetch("http://localhost/cdn-cgi/error/522?readme", {
      headers: { accept: "application/json" },
    });
    await res.arrayBuffer();
    flush();
    expect(lines(log).find((l) => l.ray === res.headers.get("Ray-ID"))).toMatchObject({ code: 522, preview: true });
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it("the zone API's previews are info with preview: true, also a described origin failure's five runs", async () => {
    const zone = uniqueZone("log-preview");
    await putZone(zone, { origin: loopback(ports.closed) });
    const { error, warn, log } = spies();
    const api = (method: string, path: string, body?: unknown) =>
      apiFetch(method, `/zones/${zone}${path}`, body, { ...ADMIN, Accept: "application/json" });
    const shown = await api("GET", "/preview/521");
    expect(shown.status).toBe(521);
    await shown.arrayBuffer();
    // The draft preview describes an origin that never connects: the cause is the failure's own words, and the
    // level must not depend on them.
    const drafted = await api("POST", "/preview", { request: { path: "/", origin: { failure: "connect-timeout" } } });
    expect(drafted.status, await drafted.clone().text()).toBe(200);
    await drafted.arrayBuffer();
    flush();
    const logged = lines(log).filter((l) => l.event === "edge_error");
    expect(logged.map((l) => [l.code, l.preview])).toEqual([
      [521, true],
      ...Array.from({ length: 5 }, () => [522, true]),
    ]);
    expect(logged[1]?.cause).toContain("connect timeout");
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it("the same error on traffic is no preview: preview false, a warning", async () => {
    const zone = uniqueZone("log-traffic");
    await putZone(zone, { origin: loopback(ports.closed) });
    const { warn } = spies();
    const res = await exports.default.fetch(`http://${zone}/`, { headers: { Accept: "application/json" } });
    expect(res.status).toBe(521);
    await res.arrayBuffer();
    flush();
    expect(lines(warn).find((l) => l.ray === res.headers.get("Ray-ID"))).toMatchObject({ code: 521, preview: false });
  });

  it("a burst of errors: every error's line is written, with its own ray, within the window", async () => {
    const { log: error } = spies(); // previews are info
    const rays: string[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await exports.default.fetch("http://localhost/cdn-cgi/error/522", {
          headers: { accept: "application/json" },
        });
        rays.push(res.headers.get("Ray-ID") ?? "");
        await res.arrayBuffer();
      }),
    );
    await vi.waitFor(
      () => {
        const logged = lines(error).filter((l) => l.event === "edge_error");
        expect(logged.map((l) => l.ray).sort()).toEqual([...rays].sort());
      },
      { timeout: 2_000, interval: 20 },
    );
    const logged = lines(error).filter((l) => l.event === "edge_error");
    expect(new Set(logged.map((l) => l.ray)).size).toBe(30); // each line once
    expect(logged[0]).toMatchObject({ zone: "localhost", code: 522, status: 522, preview: true });
    expect(error.mock.calls.length).toBeLessThan(30); // coalesced: fewer writes than lines
  });
});
