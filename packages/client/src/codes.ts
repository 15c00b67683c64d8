/**
 * The service's catalog as far as a client needs it (docs/errors.md "The catalog"): name, category, whether the
 * website's owner must act, and the retry value of retryable codes. It lets `parse` give the full meaning of an
 * error whose body is not the service's own (an operator's page or text, HEAD) from the code that `Proxy-Status`
 * names. packages/client/test/parse.test.ts compares every row with the conformance fixtures, which the Worker
 * generated.
 */

/** One catalog code: what the service's JSON body says of it. */
export interface CatalogEntry {
  readonly code: number;
  readonly name: string;
  readonly category: string;
  readonly ownerActionRequired: boolean;
  /** Seconds; null when the code is not retryable. */
  readonly retryAfter: number | null;
}

/** [code, error_name, error_category, owner_action_required, retry_after (0: not retryable)] */
type Row = readonly [number, string, string, boolean, number];

const ROWS: readonly Row[] = [
  [500, "internal_server_error", "edge", false, 30],
  [502, "origin_bad_gateway", "origin", true, 60],
  [504, "origin_gateway_timeout", "origin", true, 120],
  [520, "origin_unknown_error", "origin", true, 60],
  [521, "origin_down", "origin", true, 120],
  [522, "connection_timeout", "origin", true, 120],
  [523, "origin_unreachable", "origin", true, 120],
  [524, "origin_response_timeout", "origin", true, 120],
  [525, "ssl_handshake_failed", "ssl", true, 0],
  [526, "invalid_ssl_certificate", "ssl", true, 0],
  [1000, "dns_points_to_prohibited_ip", "config", true, 0],
  [1001, "dns_resolution_error", "dns", true, 0],
  [1002, "dns_points_to_restricted_ip", "config", true, 0],
  [1003, "direct_ip_access_denied", "access_denied", false, 0],
  [1004, "host_not_configured", "config", true, 120],
  [1005, "asn_banned", "access_denied", true, 0],
  [1006, "ip_banned", "access_denied", true, 0],
  [1007, "ip_banned_1007", "access_denied", true, 0],
  [1008, "ip_banned_1008", "access_denied", true, 0],
  [1009, "country_banned", "access_denied", true, 0],
  [1010, "browser_signature_banned", "access_denied", true, 0],
  [1011, "hotlinking_denied", "access_denied", true, 0],
  [1012, "access_denied", "access_denied", true, 0],
  [1013, "sni_hostname_mismatch", "tls", false, 0],
  [1014, "cname_cross_user_banned", "config", true, 0],
  [1015, "rate_limited", "rate_limit", false, 30],
  [1016, "origin_dns_error", "dns", true, 0],
  [1017, "tls_error_1017", "tls", false, 0],
  [1018, "host_not_found", "dns", true, 0],
  [1019, "compute_server_error", "worker", true, 0],
  [1020, "firewall_rule_blocked", "access_denied", true, 0],
  [1023, "host_not_found_1023", "dns", true, 0],
  [1025, "plan_limit_check_back_later", "rate_limit", true, 0],
  [1026, "legal_block", "legal", false, 0],
  [1027, "workers_daily_limit", "rate_limit", true, 0],
  [1028, "tls_error_1028", "tls", false, 0],
  [1029, "tls_error_1029", "tls", false, 0],
  [1033, "tunnel_error", "config", true, 120],
  [1034, "edge_ip_restricted", "config", true, 0],
  [1035, "rewrite_invalid_uri_path", "rewrite", true, 0],
  [1036, "rewrite_max_length_exceeded", "rewrite", true, 0],
  [1037, "rewrite_expression_failed", "rewrite", true, 0],
  [1038, "headers_limit_exceeded", "config", false, 60],
  [1039, "legal_restriction_1039", "legal", false, 0],
  [1040, "rewrite_header_not_allowed", "rewrite", true, 0],
  [1041, "rewrite_invalid_header_value", "rewrite", true, 0],
  [1042, "workers_dev_script_not_found", "worker", true, 0],
  [1043, "config_error_1043", "config", true, 0],
  [1044, "tls_not_fips_compliant", "tls", false, 0],
  [1045, "unsupported_1045", "unsupported", false, 0],
  [1047, "config_error_1047", "config", true, 0],
  [1049, "config_error_1049", "config", true, 0],
  [1100, "worker_error_1100", "worker", true, 0],
  [1101, "worker_threw_exception", "worker", true, 0],
  [1102, "worker_exceeded_resources", "worker", true, 0],
  [1103, "worker_error_1103", "worker", true, 0],
  [1104, "worker_error_1104", "worker", true, 0],
  [1105, "worker_error_1105", "worker", true, 0],
  [1106, "ip_banned_1106", "access_denied", true, 0],
  [1107, "access_denied_1107", "access_denied", true, 0],
  [1108, "access_denied_1108", "access_denied", true, 0],
  [1109, "access_denied_1109", "access_denied", true, 0],
  [1200, "cache_connection_limit", "rate_limit", true, 60],
  [1201, "snippet_error_1201", "snippet", true, 0],
  [1202, "snippet_error_1202", "snippet", true, 0],
  [1203, "snippet_error_1203", "snippet", true, 0],
  [1204, "snippet_error_1204", "snippet", true, 0],
  [1205, "too_many_redirects", "snippet", true, 5],
  [1206, "snippet_error_1206", "snippet", true, 0],
];

/** Every catalog code, by code. */
export const CATALOG: ReadonlyMap<number, CatalogEntry> = new Map(
  ROWS.map(([code, name, category, owner, retry]) => [
    code,
    { code, name, category, ownerActionRequired: owner, retryAfter: retry === 0 ? null : retry },
  ]),
);

/**
 * The retry default of every retryable catalog code (seconds), for responses that say only their code (legacy
 * bodies, `Proxy-Status` on HEAD without `Retry-After`): a code not listed is not retryable.
 */
export const RETRY_DEFAULTS: Readonly<Record<number, number>> = Object.fromEntries(
  ROWS.filter((r) => r[4] > 0).map((r) => [r[0], r[4]]),
);
