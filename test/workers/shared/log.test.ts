/** src/shared/log.ts: each event at its table level, on the console method of that level; per-call levels. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { EVENTS, eventLine, eventLinePrefix, logEvent, writeEventLines } from "../../../src/shared/log";

function spies() {
  return {
    error: vi.spyOn(console, "error").mockImplementation(() => undefined),
    warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
    log: vi.spyOn(console, "log").mockImplementation(() => undefined),
  };
}

afterEach(() => vi.restoreAllMocks());

describe("logEvent", () => {
  it("writes one JSON line, event first and the fields in order, at the table's level", () => {
    const { error, warn, log } = spies();
    logEvent("api_exception", { ray: "0123456789abcdef", path: "/zones/x", cause: 'a "quoted" cause' });
    expect(EVENTS.api_exception.level).toBe("error");
    expect(error.mock.calls).toEqual([
      ['{"event":"api_exception","ray":"0123456789abcdef","path":"/zones/x","cause":"a \\"quoted\\" cause"}'],
    ]);
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  it("a per-call event goes to the console method of the level its writer gives", () => {
    const { error, warn, log } = spies();
    const fields = { ray: "0123456789abcdef", zone: "z.example", code: 1020, status: 403, cause: null };
    logEvent("edge_error", fields, "info");
    logEvent("edge_error", { ...fields, code: 502, status: 502 }, "warn");
    logEvent("edge_error", { ...fields, code: 1101, status: 500 }, "error");
    expect(log.mock.calls.map((c) => JSON.parse(String(c[0])) as { code: number })).toMatchObject([{ code: 1020 }]);
    expect(warn.mock.calls.map((c) => JSON.parse(String(c[0])) as { code: number })).toMatchObject([{ code: 502 }]);
    expect(error.mock.calls.map((c) => JSON.parse(String(c[0])) as { code: number })).toMatchObject([{ code: 1101 }]);
  });

  it("only edge_error is per-call; every other event has one level", () => {
    const perCall = Object.entries(EVENTS)
      .filter(([, spec]) => spec.level === "per-call")
      .map(([name]) => name);
    expect(perCall).toEqual(["edge_error"]);
  });
});

describe("eventLine, eventLinePrefix, writeEventLines", () => {
  it("a built line is JSON.stringify of {event, ...fields}; the prefix opens the same line", () => {
    const fields = { var: "TAG_LIMIT", value: "lots", problem: "p", used: "10000" };
    const line = eventLine("config_invalid", fields);
    expect(line).toBe(JSON.stringify({ event: "config_invalid", ...fields }));
    expect(line.startsWith(eventLinePrefix("config_invalid") + ",")).toBe(true);
  });

  it("writes pre-built lines in one call at the event's level", () => {
    const { error, log } = spies();
    writeEventLines("edge_error", "a\nb", "info");
    writeEventLines("config_invalid", "c");
    expect(log.mock.calls).toEqual([["a\nb"]]);
    expect(error.mock.calls).toEqual([["c"]]);
  });
});
