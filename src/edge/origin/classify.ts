/**
 * Origin failure → error code (docs/origin.md). Pure: it weighs the evidence the proxy gathered — the fetch
 * error's message, then the diagnostic probes — and never touches the network itself.
 *
 * What workerd's fetch throws (measured, docs/origin.md):
 *   "Network connection lost."         refused, reset, closed without a byte (empty reply)
 *   "internal error; reference = …"    unparsable status line or headers, and every TLS failure
 * so the message alone separates only "the connection broke" from "the bytes were wrong"; the probes do
 * the rest.
 */
import type { TcpProbe, TlsProbe } from "./network";

export type OriginFailureCode = 502 | 520 | 521 | 522 | 523 | 524 | 525 | 526 | 1016;

/**
 * What failed, as a constant token: `Server-Timing`'s `desc` (docs/errors.md "Server-Timing"). Never an address or
 * anything from the origin: the cause, which may hold those, is for the log line only.
 */
export type OriginFailureReason =
  | "connect-refused"
  | "connect-timeout"
  | "network-unreachable"
  | "dns-unresolvable"
  | "response-timeout"
  | "connection-reset"
  | "malformed-response"
  | "tls-handshake"
  | "tls-certificate"
  | "unknown";

/**
 * A failure as a value: the code to generate, why (for the log line only), the reason token, and whether the request
 * reached the origin (docs/errors.md "Did the request reach the origin?"): `false` when no connection was accepted or
 * TLS failed (nothing of the request was sent), `true` when the request was sent on an open connection and the answer
 * failed (reset, closed, timed out, malformed), `null` when the runtime's error says neither.
 */
export interface OriginFailure {
  readonly code: OriginFailureCode;
  readonly cause: string;
  readonly reason: OriginFailureReason;
  readonly reached: boolean | null;
}

/** What the runtime's fetch error says, reduced to what can be relied on. */
export type FetchErrorKind = "connection-lost" | "internal" | "other";

export function fetchErrorKind(message: string): FetchErrorKind {
  if (/network connection lost/i.test(message)) return "connection-lost";
  if (/internal error/i.test(message)) return "internal";
  return "other";
}

/** The code for a TCP probe that did not open (the origin was never reached). */
export function unreachedOrigin(probe: Exclude<TcpProbe, { kind: "open" }>, context: string): OriginFailure {
  switch (probe.kind) {
    case "refused":
      return unreached(521, `${context}; TCP connection refused (${probe.detail})`, "connect-refused");
    case "unreachable":
      return unreached(523, `${context}; network unreachable (${probe.detail})`, "network-unreachable");
    case "unresolvable":
      return unreached(1016, `${context}; origin host cannot be resolved (${probe.detail})`, "dns-unresolvable");
    case "timeout":
      return unreached(522, `${context}; no TCP connection within the connect timeout`, "connect-timeout");
  }
}

function unreached(code: OriginFailureCode, cause: string, reason: OriginFailureReason): OriginFailure {
  return { code, cause, reason, reached: false };
}

/** Connected, request sent, no response headers within the read timeout (docs/origin.md): 524, reached. */
export function responseTimeout(readTimeoutMs: number): OriginFailure {
  const cause = `connected, no response headers within ${readTimeoutMs} ms`;
  return { code: 524, cause, reason: "response-timeout", reached: true };
}

/** Next step after a failed fetch whose origin accepted a TCP connection. */
export type Verdict = { readonly kind: "final"; readonly failure: OriginFailure } | { readonly kind: "probe-tls" };

export function classifyReachedOrigin(kind: FetchErrorKind, scheme: "http" | "https", message: string): Verdict {
  const context = `fetch failed: ${message}`;
  if (kind === "connection-lost") {
    // The probe found the origin accepting connections: the connection was made and the request sent, then it
    // was reset or closed before a complete response (an empty reply included).
    const cause = `${context}; connection closed or reset before a complete response`;
    return { kind: "final", failure: { code: 520, cause, reason: "connection-reset", reached: true } };
  }
  // On https every TLS failure is "internal error" too: only a TLS probe can tell 525/526 from 502.
  if (scheme === "https" && kind === "internal") return { kind: "probe-tls" };
  if (kind === "internal") {
    const cause = `${context}; malformed response`;
    return { kind: "final", failure: { code: 502, cause, reason: "malformed-response", reached: true } };
  }
  const cause = `${context}; unknown origin failure`;
  return { kind: "final", failure: { code: 520, cause, reason: "unknown", reached: null } };
}

/** After an https fetch failed with "internal error" on an origin that accepts TCP. */
export function classifyTls(probe: TlsProbe, message: string): OriginFailure {
  const context = `fetch failed: ${message}`;
  switch (probe.kind) {
    case "server-hello":
      // The origin negotiates TLS with a plain ClientHello, so what failed is the runtime's verification of
      // its certificate (self-signed, expired, wrong name). A malformed HTTP response over valid TLS would
      // look the same; that case is documented as indistinguishable here.
      // No HTTP byte is sent before the handshake completes: a TLS failure never reached the origin's HTTP server.
      return unreached(526, `${context}; origin speaks TLS, certificate refused`, "tls-certificate");
    case "alert":
      return unreached(525, `${context}; origin refused the TLS handshake (alert)`, "tls-handshake");
    case "not-tls":
      return unreached(525, `${context}; origin does not speak TLS on this port`, "tls-handshake");
    case "no-answer":
      return unreached(525, `${context}; no TLS handshake answer`, "tls-handshake");
  }
}
