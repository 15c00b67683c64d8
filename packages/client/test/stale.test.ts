/**
 * `readStale` (docs/client.md "Stale answers"): the edge's `Cache-Status` member of a stale answer, read with the
 * package's own RFC 8941 parser and compared with `structured-headers` on random members; members of other caches,
 * fresh answers and malformed fields are not stale answers. The real Worker's stale answers are read in
 * test/workers/edge/stale/stale-copies.test.ts.
 */
import fc from "fast-check";
import { serializeList, Token, type Item } from "structured-headers";
import { describe, expect, it } from "vitest";
import { fetchWithRetry, readStale } from "../src/index.js";

const headers = (init: Record<string, string>): Headers => new Headers(init);

describe("readStale", () => {
  it("reads the edge's member: age, why, the failed status and the remaining freshness", () => {
    const value = "edge-errors; fwd=stale; fwd-status=521; ttl=-240; detail=stale-if-error";
    expect(readStale(headers({ "Cache-Status": value, Age: "300" }))).toEqual({
      age: 300,
      because: "stale-if-error",
      failedStatus: 521,
      ttl: -240,
    });
    const slow = "edge-errors; fwd=stale; ttl=5; detail=stale-if-slow";
    expect(readStale(headers({ "Cache-Status": slow, Age: "55" }))).toEqual({
      age: 55,
      because: "stale-if-slow",
      failedStatus: null,
      ttl: 5,
    });
  });

  it("takes the edge's own member after an origin-side cache's, and nothing else", () => {
    const value = 'OriginCache; hit; ttl=30, "edge-errors"; fwd=stale; fwd-status=503; ttl=-1; detail=stale-if-error';
    expect(readStale(headers({ "Cache-Status": value, Age: "31" }))?.failedStatus).toBe(503);
    for (const other of [
      "OriginCache; fwd=stale; detail=stale-if-error",
      "edge-errors; fwd=miss",
      "edge-errors; hit",
      "edge-errors; fwd=stale; detail=", // does not parse
      "edge-errors; fwd=stale,", // does not parse
    ]) {
      expect(readStale(headers({ "Cache-Status": other })), other).toBeNull();
    }
    expect(readStale(headers({}))).toBeNull();
    // An Age that is no delta-seconds is an unknown age, read as 0; an unknown detail is said so.
    expect(readStale(headers({ "Cache-Status": "edge-errors; fwd=stale; detail=later", Age: "x" }))).toEqual({
      age: 0,
      because: "unknown",
      failedStatus: null,
      ttl: null,
    });
  });

  it("agrees with structured-headers on random members", () => {
    const detail = fc.constantFrom("stale-if-error", "stale-if-slow");
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.integer({ min: -1e6, max: 1e6 }),
        detail,
        (status, ttl, why) => {
          const member: Item = [
            new Token("edge-errors"),
            new Map<string, Token | number>([
              ["fwd", new Token("stale")],
              ["fwd-status", status],
              ["ttl", ttl],
              ["detail", new Token(why)],
            ]),
          ];
          const value = serializeList([[new Token("other"), new Map([["hit", true]])], member]);
          expect(readStale(headers({ "Cache-Status": value, Age: "7" }))).toEqual({
            age: 7,
            because: why,
            failedStatus: status,
            ttl,
          });
        },
      ),
    );
  });

  it("fetchWithRetry hands it on with the response (null for a fresh one)", async () => {
    const stale = "edge-errors; fwd=stale; fwd-status=522; ttl=-3; detail=stale-if-error";
    const answers = [new Response("kept", { headers: { "Cache-Status": stale, Age: "63" } }), new Response("fresh")];
    const fetch = (): Promise<Response> => Promise.resolve(answers.shift() as Response);
    const first = await fetchWithRetry("https://shop.example/", {}, { fetch });
    expect(first.stale).toEqual({ age: 63, because: "stale-if-error", failedStatus: 522, ttl: -3 });
    expect((await fetchWithRetry("https://shop.example/", {}, { fetch })).stale).toBeNull();
  });
});
