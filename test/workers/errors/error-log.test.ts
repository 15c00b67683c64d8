/**
 * The edge_error log line (src/errors/error-log.ts): one JSON line per generated error, written at once
 * when no window is open, coalesced during a burst and written when the window closes (one write per stream, one
 * line per error), never dropped. A preview writes no edge_error line: an `error_preview` line, at info.
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
  it("is exactly JSON.stringify of the object, also for hostile zones and causes; a preview is an error_preview", () => {
    for (const cause of [undefined, 'q " b \\ n \n t \t', "☃ \u0000 \u2028 \ud800", ""]) {
      for (const preview of [false, true]) {
        const fields = { ray: "0123456789abcdef", zone: 'odd"zone\\.example', code: 1015, status: 429 };
        const event = preview ? "error_preview" : "edge_error";
        const expected = JSON.stringify({ event, ...fields, cause: cause ?? null });
        expect(edgeErrorLine({ ...fields, cause, preview })).toBe(expected);
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
    const { preview: _preview, ...b1 } = line("b1", 403, 1020);
    expect(lines(log)).toEqual([{ event: "edge_error", ...b1 }]); // `preview` is no field of the line
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
    [500, 500, "error"],
    [1101, 500, "error"],
    [1102, 503, "error"],
    [522, 522, "warn"],
    [521, 521, "warn"],
    [502, 502, "warn"],
    [1016, 530, "warn"],
    [1020, 403, "info"],
    [1015, 429, "info"],
    [1001, 409, "info"],
  ] as const)("%d (%d) → %s", (code, status, level) => {
    expect(levelOf({ code, status })).toBe(level);
  });

  it("a preview's line is an error_preview at info whatever its code, in a window on its own stream", async () => {
    const { error, warn, log } = spies();
    const first = invocation();
    logEdgeError({ ...line("p0", 500), preview: true }, 50, first, 40_000);
    logEdgeError({ ...line("p1", 522), preview: true }, 50, invocation(), 40_001);
    logEdgeError(line("p2", 403, 1020), 50, invocation(), 40_002);
    logEdgeError({ ...line("p3", 500, 1101), preview: true }, 50, invocation(), 40_003);
    await first.settled();
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
    // p0 at once; then the window's info stream (p2) and its preview stream (p1, p3), one write each.
    expect(log).toHaveBeenCalledTimes(3);
    expect(lines(log).map((l) => [l.event, l.ray])).toEqual([
      ["error_preview", "p0"],
      ["edge_error", "p2"],
      ["error_preview", "p1"],
      ["error_preview", "p3"],
    ]);
    expect(lines(log).every((l) => !("preview" in l))).toBe(true);
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
  it("the README's first curl (a preview of 522) writes no edge_error: an error_preview line at info", async () => {
    const { error, warn, log } = spies();
    const res = await exports.default.fetch("http://localhost/cdn-cgi/error/522?readme", {
      headers: { accept: "application/json" },
    });
    await res.arrayBuffer();
    flush();
    expect(lines(log).filter((l) => l.ray === res.headers.get("Ray-ID"))).toEqual([
      {
        event: "error_preview",
        ray: res.headers.get("Ray-ID"),
        zone: "localhost",
        code: 522,
        status: 522,
        cause: "preview endpoint",
      },
    ]);
    expect(lines(log).filter((l) => l.event === "edge_error")).toEqual([]);
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it("the zone API's previews write no edge_error, also a described origin failure's five runs", async () => {
    const zone = uniqueZone("log-preview");
    await putZone(zone, { origin: loopback(ports.closed) });
    const { error, warn, log } = spies();
    const api = (method: string, path: string, body?: unknown) =>
      apiFetch(method, `/zones/${zone}${path}`, body, { ...ADMIN, Accept: "application/json" });
    const shown = await api("GET", "/preview/521");
    expect(shown.status).toBe(521);
    await shown.arrayBuffer();
    // The draft preview describes an origin that never connects: the cause is the failure's own words, and the
    // event must not depend on them.
    const drafted = await api("POST", "/preview", { request: { path: "/", origin: { failure: "connect-timeout" } } });
    expect(drafted.status, await drafted.clone().text()).toBe(200);
    await drafted.arrayBuffer();
    flush();
    const logged = lines(log);
    expect(logged.map((l) => [l.event, l.code])).toEqual([
      ["error_preview", 521],
      ...Array.from({ length: 5 }, () => ["error_preview", 522]),
    ]);
    expect(logged[0]?.ray).toBe(shown.headers.get("Ray-ID"));
    expect(logged[1]?.cause).toContain("connect timeout");
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it("the same error on traffic is an edge_error, a warning", async () => {
    const zone = uniqueZone("log-traffic");
    await putZone(zone, { origin: loopback(ports.closed) });
    const { warn, log } = spies();
    const res = await exports.default.fetch(`http://${zone}/`, { headers: { Accept: "application/json" } });
    expect(res.status).toBe(521);
    await res.arrayBuffer();
    flush();
    const ray = res.headers.get("Ray-ID");
    expect(lines(warn).filter((l) => l.ray === ray)).toEqual([
      { event: "edge_error", ray, zone, code: 521, status: 521, cause: expect.any(String) as unknown },
    ]);
    expect(lines(log).filter((l) => l.event === "error_preview")).toEqual([]);
  });

  it("a burst of errors on traffic: every error's line is written, with its own ray, within the window", async () => {
    const zone = uniqueZone("log-burst");
    await putZone(zone, { origin: loopback(ports.closed) });
    const { warn } = spies(); // 521: the origin failing, a warning
    const rays: string[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await exports.default.fetch(`http://${zone}/`, { headers: { accept: "application/json" } });
        expect(res.status).toBe(521);
        rays.push(res.headers.get("Ray-ID") ?? "");
        await res.arrayBuffer();
      }),
    );
    await vi.waitFor(
      () => {
        const logged = lines(warn).filter((l) => l.event === "edge_error" && l.zone === zone);
        expect(logged.map((l) => l.ray).sort()).toEqual([...rays].sort());
      },
      { timeout: 2_000, interval: 20 },
    );
    const logged = lines(warn).filter((l) => l.event === "edge_error" && l.zone === zone);
    expect(new Set(logged.map((l) => l.ray)).size).toBe(30); // each line once
    expect(logged[0]).toMatchObject({ zone, code: 521, status: 521 });
    expect(warn.mock.calls.length).toBeLessThan(30); // coalesced: fewer writes than lines
  });
});
