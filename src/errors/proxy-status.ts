/**
 * `Proxy-Status` (RFC 9209) of every generated error (docs/errors.md): a client that sends `HEAD` or never
 * reads bodies still learns that this service generated the answer and why, in the registered vocabulary
 * (RFC 9209 §2.3, the "HTTP Proxy-Status Error Types" registry). One list member: this service's name as an
 * sf-token (RFC 8941 §3.3.4), `error` = the type that fits the code, and `details` = `"{code} {error_name}"`, so
 * a HEAD client also gets the catalog code. `details` is built from the catalog only: it can never carry an origin
 * host, address or port (RFC 9209 §2.1.5, §4: details must not reveal internals). The value is constant per code,
 * built once per isolate and put into the per-code prototype Response (headers.ts): nothing is built per error.
 * docs/errors.md "Proxy-Status" holds the same table; test/workers/errors/proxy-status.test.ts keeps them equal.
 */
import { CATALOG } from "./catalog";

/** This service's name in `Proxy-Status`: a constant token, independent of OPERATOR_NAME (a deployment's brand). */
export const PROXY_NAME = "edge-errors";

/** The RFC 9209 §2.3 error types this service uses. */
export type ProxyErrorType =
  | "destination_not_found"
  | "destination_unavailable"
  | "destination_ip_prohibited"
  | "dns_error"
  | "connection_refused"
  | "connection_timeout"
  | "connection_limit_reached"
  | "tls_protocol_error"
  | "tls_certificate_error"
  | "http_request_error"
  | "http_request_denied"
  | "http_response_incomplete"
  | "http_response_timeout"
  | "http_protocol_error"
  | "proxy_internal_error"
  | "proxy_configuration_error"
  | "proxy_loop_detected";

/**
 * The type of each catalog code. Exhaustive by test (every code of CATALOG has one). Blocks by the zone's policy
 * (firewall, IP access, country, legal, rate limits) are `http_request_denied` ("rejected … based on its
 * configuration and/or policy settings", §2.3.16); malformed or unacceptable client requests `http_request_error`
 * (§2.3.17); the zone's own broken configuration `proxy_configuration_error` (§2.3.29); the service's or a
 * Worker's failures `proxy_internal_error` (§2.3.28).
 */
export const PROXY_ERROR_TYPES: Readonly<Record<number, ProxyErrorType>> = {
  500: "proxy_internal_error",
  502: "http_protocol_error",
  504: "http_response_timeout",
  520: "http_response_incomplete",
  521: "connection_refused",
  522: "connection_timeout",
  523: "destination_unavailable",
  524: "http_response_timeout",
  525: "tls_protocol_error",
  526: "tls_certificate_error",
  1000: "proxy_loop_detected",
  1001: "destination_not_found",
  1002: "destination_ip_prohibited",
  1003: "http_request_denied",
  1004: "proxy_configuration_error",
  1005: "http_request_denied",
  1006: "http_request_denied",
  1007: "http_request_denied",
  1008: "http_request_denied",
  1009: "http_request_denied",
  1010: "http_request_denied",
  1011: "http_request_denied",
  1012: "http_request_denied",
  1013: "http_request_error",
  1014: "proxy_configuration_error",
  1015: "http_request_denied",
  1016: "dns_error",
  1017: "http_request_error",
  1018: "destination_not_found",
  1019: "proxy_internal_error",
  1020: "http_request_denied",
  1023: "destination_not_found",
  1025: "http_request_denied",
  1026: "http_request_denied",
  1027: "http_request_denied",
  1028: "http_request_error",
  1029: "http_request_error",
  1033: "destination_unavailable",
  1034: "proxy_configuration_error",
  1035: "proxy_configuration_error",
  1036: "proxy_configuration_error",
  1037: "proxy_configuration_error",
  1038: "http_request_error",
  1039: "http_request_denied",
  1040: "proxy_configuration_error",
  1041: "proxy_configuration_error",
  1042: "destination_not_found",
  1043: "proxy_configuration_error",
  1044: "http_request_error",
  1045: "http_request_error",
  1047: "proxy_configuration_error",
  1049: "proxy_configuration_error",
  1100: "proxy_internal_error",
  1101: "proxy_internal_error",
  1102: "proxy_internal_error",
  1103: "proxy_internal_error",
  1104: "proxy_internal_error",
  1105: "proxy_internal_error",
  1106: "http_request_denied",
  1107: "http_request_denied",
  1108: "http_request_denied",
  1109: "http_request_denied",
  1200: "connection_limit_reached",
  1201: "proxy_internal_error",
  1202: "proxy_internal_error",
  1203: "proxy_internal_error",
  1204: "proxy_internal_error",
  1205: "proxy_internal_error",
  1206: "proxy_internal_error",
};

/** code → header value, built once per isolate from constants. */
const VALUES = new Map<number, string>(
  CATALOG.map((entry) => [
    entry.code,
    // error_name is snake_case ASCII (catalog): nothing in it needs sf-string escaping (RFC 8941 §3.3.3).
    `${PROXY_NAME}; error=${PROXY_ERROR_TYPES[entry.code] ?? "proxy_internal_error"}; details="${entry.code} ${entry.errorName}"`,
  ]),
);

/** The `Proxy-Status` value of a catalog code (an unknown code is the service's own fault: proxy_internal_error). */
export function proxyStatus(code: number): string {
  return VALUES.get(code) ?? `${PROXY_NAME}; error=proxy_internal_error`;
}
