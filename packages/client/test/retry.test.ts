/**
 * The retry policy's properties (fast-check): never a retry of a non-retryable error, never a wait over the cap,
 * never a wait shorter than the hint (a hint over the cap gives up or escalates instead), never a retry of a
 * non-idempotent method unless asked (or the request never reached the origin, or carried an Idempotency-Key),
 * never past maxAttempts; `owner_action_required` escalates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideRetry, type EdgeError } from "../src/index.js";

const METHODS = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "POST", "PATCH", "CONNECT"];
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]);

const edgeError = fc
  .record({
    retryable: fc.boolean(),
    retryAfter: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    owner: fc.option(fc.boolean(), { nil: null }),
    reached: fc.option(fc.boolean(), { nil: null }),
    code: fc.constantFrom(500, 502, 521, 522, 525, 1015, 1020),
  })
  .map((e): EdgeError => ({
    kind: "edge-error",
    source: "json",
    status: e.code < 1000 ? e.code : 403,
    code: e.code,
    name: null,
    category: null,
    rayId: null,
    retryable: e.retryable,
    retryAfter: e.retryable ? e.retryAfter : null,
    retryAfterMs: e.retryable && e.retryAfter !== null ? e.retryAfter * 1000 : null,
    ownerActionRequired: e.owner,
    requestReachedOrigin: e.reached,
    fields: {},
    proxyStatus: null,
    rateLimit: null,
  }));

const options = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 10 }),
  maxDelayMs: fc.integer({ min: 1, max: 200_000_000 }),
  minDelayMs: fc.integer({ min: 0, max: 5_000 }),
  jitter: fc.double({ min: 0, max: 1, noNaN: true }),
  retryNonIdempotent: fc.boolean(),
  random: fc.double({ min: 0, max: 0.999_999, noNaN: true }).map((r) => () => r),
});

const context = fc.record({
  attempt: fc.integer({ min: 1, max: 12 }),
  method: fc.constantFrom(...METHODS),
  status: fc.constant(503),
  idempotencyKey: fc.boolean(),
});

describe("decideRetry", () => {
  it("never retries a non-retryable error; escalates when the owner must act", () => {
    fc.assert(
      fc.property(edgeError, context, options, (error, ctx, opts) => {
        const d = decideRetry(error, ctx, opts);
        if (!error.retryable) {
          expect(d.kind).not.toBe("retry");
          expect(d.kind).toBe(error.ownerActionRequired === true ? "escalate" : "give-up");
        }
      }),
    );
  });

  it("a wait is never over the cap and never under the hint (nor under minDelayMs ≤ cap)", () => {
    fc.assert(
      fc.property(edgeError, context, options, (error, ctx, opts) => {
        const d = decideRetry(error, ctx, opts);
        if (d.kind !== "retry") return;
        expect(d.delayMs).toBeLessThanOrEqual(opts.maxDelayMs);
        // Retryable with no wait given at all (an explicit verdict alone): the fallback, 1 s by default.
        const hint = error.retryAfterMs ?? 1000;
        expect(d.delayMs).toBeGreaterThanOrEqual(hint);
        expect(d.delayMs).toBeGreaterThanOrEqual(Math.min(opts.minDelayMs, opts.maxDelayMs));
        expect(d.delayMs).toBeLessThanOrEqual(Math.max(hint, opts.minDelayMs) * (1 + opts.jitter) + 1);
      }),
    );
  });

  it("a hint over the cap is not shortened: give up, or escalate when the owner must act", () => {
    fc.assert(
      fc.property(edgeError, context, options, (error, ctx, opts) => {
        fc.pre(error.retryable && error.retryAfter !== null && error.retryAfter * 1000 > opts.maxDelayMs);
        const d = decideRetry(error, ctx, opts);
        expect(d.kind).toBe(error.ownerActionRequired === true ? "escalate" : "give-up");
      }),
    );
  });

  it("no retry of a non-idempotent method unless asked, unsent, or keyed; and none past maxAttempts", () => {
    fc.assert(
      fc.property(edgeError, context, options, (error, ctx, opts) => {
        const d = decideRetry(error, ctx, opts);
        if (d.kind !== "retry") return;
        const safe = error.requestReachedOrigin === false || ctx.idempotencyKey;
        expect(IDEMPOTENT.has(ctx.method) || opts.retryNonIdempotent || safe).toBe(true);
        expect(ctx.attempt).toBeLessThan(opts.maxAttempts);
      }),
    );
  });

  it("a response that is not an edge error is retried only for the caller's statuses", () => {
    expect(decideRetry(null, { attempt: 1, method: "GET", status: 503 }).kind).toBe("give-up");
    const d = decideRetry(null, { attempt: 1, method: "GET", status: 503 }, { retryStatuses: [503], random: () => 0 });
    expect(d).toEqual({ kind: "retry", delayMs: 1000, reason: "status 503" });
  });
});
