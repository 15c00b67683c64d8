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

/** A failure as a value: the code to generate and why (for the log line only). */
export interface OriginFailure {
  readonly code: OriginFailureCode;
  readonly cause: string;
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
      return { code: 521, cause: `${context}; TCP connection refused (${probe.detail})` };
    case "unreachable":
      return { code: 523, cause: `${context}; network unreachable (${probe.detail})` };
    case "unresolvable":
      return { code: 1016, cause: `${context}; origin host cannot be resolved (${probe.detail})` };
    case "timeout":
      return { code: 522, cause: `${context}; no TCP connection within the connect timeout` };
  }
}

/** Next step after a failed fetch whose origin accepted a TCP connection. */
export type Verdict = { readonly kind: "final"; readonly failure: OriginFailure } | { readonly kind: "probe-tls" };

export function classifyReachedOrigin(kind: FetchErrorKind, scheme: "http" | "https", message: string): Verdict {
  const context = `fetch failed: ${message}`;
  if (kind === "connection-lost") {
    return {
      kind: "final",
      failure: { code: 520, cause: `${context}; connection closed or reset before a complete response` },
    };
  }
  // On https every TLS failure is "internal error" too: only a TLS probe can tell 525/526 from 502.
  if (scheme === "https" && kind === "internal") return { kind: "probe-tls" };
  if (kind === "internal") {
    return { kind: "final", failure: { code: 502, cause: `${context}; malformed response` } };
  }
  return { kind: "final", failure: { code: 520, cause: `${context}; unknown origin failure` } };
}

/** After an https fetch failed with "internal error" on an origin that accepts TCP. */
export function classifyTls(probe: TlsProbe, message: string): OriginFailure {
  const context = `fetch failed: ${message}`;
  switch (probe.kind) {
    case "server-hello":
      // The origin negotiates TLS with a plain ClientHello, so what failed is the runtime's verification of
      // its certificate (self-signed, expired, wrong name). A malformed HTTP response over valid TLS would
      // look the same; that case is documented as indistinguishable here.
      return { code: 526, cause: `${context}; origin speaks TLS, certificate refused` };
    case "alert":
      return { code: 525, cause: `${context}; origin refused the TLS handshake (alert)` };
    case "not-tls":
      return { code: 525, cause: `${context}; origin does not speak TLS on this port` };
    case "no-answer":
      return { code: 525, cause: `${context}; no TLS handshake answer` };
  }
}
