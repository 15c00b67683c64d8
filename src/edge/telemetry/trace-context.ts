/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a client sends, read strictly, and the
 * one this service sends to the origin. Pure.
 */
import { randomBytes, toHex } from "../../shared/crypto";

/** A span's identity as `traceparent` carries it: 32 and 16 lower-case hex characters, and the flags byte. */
export interface SpanIdentity {
  readonly traceId: string;
  readonly spanId: string;
  /** Bit 0: sampled (§3.2.2.5). */
  readonly flags: number;
}

/** §3.2.2: `version "-" trace-id "-" parent-id "-" trace-flags`. A future version may append fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * The parent a `traceparent` names, or `null` when it is absent or invalid (§3.2.2: version `ff` is invalid, an
 * all-zero id is invalid, version 00 has exactly four fields; an unknown higher version is read as 00 when its
 * first four fields are).
 */
export function parseTraceparent(value: string | null): SpanIdentity | null {
  if (value === null) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (match === null) return null;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}

/** `traceparent` version 00 for a span (§3.2). */
export function traceparentOf(span: SpanIdentity): string {
  return `00-${span.traceId}-${span.spanId}-${span.flags & 1 ? "01" : "00"}`;
}

/** A new trace id: 16 random bytes (§3.2.2.3; random, so the `random` flag of level 2 holds too). */
export function newTraceId(): string {
  return toHex(randomBytes(16));
}

/** A new span id: 8 random bytes (§3.2.2.4). */
export function newSpanId(): string {
  return toHex(randomBytes(8));
}
