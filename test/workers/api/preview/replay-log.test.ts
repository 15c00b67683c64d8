/**
 * A replay's log (docs/custom-errors.md "Replay", docs/configuration.md "Events"): a replay of N recorded errors
 * runs N errors through the pipeline, but none of them failed, so it writes no `edge_error` line per record: one
 * `preview_replay` summary line for the whole call, whatever N.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../../src/index";
import { flush } from "../../../../src/errors/error-log";
import { apiOk, entrypoint } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

afterEach(() => {
  flush(); // no coalescing window left open for the next test
  vi.restoreAllMocks();
});

const RECORDS = 12;

/** One blocked request as zone traffic (a firewall block: 1020, recorded by analytics). */
async function blocked(zone: string, i: number): Promise<void> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://${zone}/admin/${i}`, { headers: { Accept: i % 2 === 0 ? "application/json" : "text/html" } }),
    env,
    ctx,
  );
  await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(403);
}

async function recorded(zone: string): Promise<number> {
  return (await apiOk<{ total: number }>("GET", `/zones/${zone}/analytics/errors?step=minute`)).result.total;
}

/** Every JSON line written through the console, by level. */
function lines(spies: Record<string, { mock: { calls: unknown[][] } }>): Record<string, unknown>[] {
  return Object.values(spies).flatMap((spy) =>
    spy.mock.calls
      .flatMap((call) => String(call[0]).split("\n"))
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  );
}

describe("a replay's log", () => {
  it(`a replay of ${RECORDS} recorded errors writes one summary line, no line per record`, async () => {
    const zone = uniqueZone("replay-log");
    await putZone(zone, { origin: loopback(ports.http) });
    await apiOk("PUT", entrypoint(zone, "http_request_firewall_custom"), {
      rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block" }],
    });
    for (let i = 0; i < RECORDS; i++) await blocked(zone, i);
    for (let i = 0; i < 80 && (await recorded(zone)) < RECORDS; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await recorded(zone)).toBe(RECORDS);
    flush(); // the traffic's own lines are written before the console is watched

    const spies = {
      error: vi.spyOn(console, "error").mockImplementation(() => undefined),
      warn: vi.spyOn(console, "warn").mockImplementation(() => undefined),
      log: vi.spyOn(console, "log").mockImplementation(() => undefined),
    };
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://localhost/zones/${zone}/preview/replay`, {
        method: "POST",
        headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
        body: JSON.stringify({ draft: { rules: [] } }),
      }),
      env,
      ctx,
    );
    const report = await res.json<{ result: { records: number; replayed: number; changed: number } }>();
    await waitOnExecutionContext(ctx);
    flush(); // lines waiting in a coalescing window are written now
    expect(res.status).toBe(200);
    expect(report.result).toMatchObject({ records: RECORDS, replayed: RECORDS });

    const written = lines(spies);
    expect(written.filter((l) => l.event === "edge_error")).toEqual([]);
    expect(written).toEqual([
      {
        event: "preview_replay",
        zone,
        draft: true,
        records: RECORDS,
        replayed: RECORDS,
        changed: report.result.changed,
        truncated: false,
        units: expect.any(Number) as number,
      },
    ]);
    expect(spies.log).toHaveBeenCalledTimes(1); // at info: nothing failed
  });
});
