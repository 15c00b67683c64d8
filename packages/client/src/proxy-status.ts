/**
 * This service's member of `Proxy-Status` (RFC 9209) and what its error type says about the origin: shared by `parse`
 * and `parseGrpcError`.
 */
import { parseSfList } from "./structured-field.js";
import type { ProxyStatus } from "./types.js";

/** This service's name in `Proxy-Status` (the service's src/errors/proxy-status.ts). */
export const PROXY_NAME = "edge-errors";

/** This service's member of `Proxy-Status`, if any (RFC 9209: a list, one member per intermediary). */
export function ourProxyStatus(header: string | null): ProxyStatus | null {
  if (header === null) return null;
  const list = parseSfList(header);
  if (list === null) return null;
  for (const member of list) {
    if (member.kind !== "item") continue;
    const name = typeof member.value === "string" ? member.value : tokenValue(member.value);
    if (name !== PROXY_NAME) continue;
    const error = member.params.get("error");
    const details = member.params.get("details");
    return {
      name,
      error: tokenValue(error) ?? (typeof error === "string" ? error : null),
      details: typeof details === "string" ? details : null,
    };
  }
  return null;
}

function tokenValue(value: unknown): string | null {
  if (typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "token") {
    return (value as { value: string }).value;
  }
  return null;
}

/**
 * The `Proxy-Status` error types (RFC 9209 §2.3) that say the request was never sent to the origin: no name, no
 * route, no connection, no TLS session, or refused by the proxy itself. A body of the operator's own (a custom rule's
 * JSON, a page) carries no `request_reached_origin`, but the service's `Proxy-Status` is kept on every answer
 * (docs/client.md "request_reached_origin and Idempotency-Key").
 */
const NOT_SENT = new Set([
  "dns_timeout",
  "dns_error",
  "destination_not_found",
  "destination_unavailable",
  "destination_ip_prohibited",
  "destination_ip_unroutable",
  "connection_refused",
  "connection_timeout",
  "connection_limit_reached",
  "tls_protocol_error",
  "tls_certificate_error",
  "tls_alert_received",
  "http_request_error",
  "http_request_denied",
  "proxy_loop_detected",
  "proxy_configuration_error",
]);

/** `false` when this service's Proxy-Status names an error that never sends the request; otherwise unknown. */
export function neverSent(proxyStatus: ProxyStatus | null): false | null {
  return proxyStatus?.error != null && NOT_SENT.has(proxyStatus.error) ? false : null;
}
