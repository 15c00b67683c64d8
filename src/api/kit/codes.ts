/**
 * The one table of management API failures: each named kind → HTTP status and v4 envelope code. Every switch that
 * turns a failure value into a response (`zoneApiFailure` in zone-section.ts, `toApiFailure` in
 * src/api/tags/api-failure.ts) and every kit failure (envelope.ts `API_FAILURES`, body.ts, dry-run.ts) takes its
 * numbers from here, and only the message, built from the failure's own fields, is written at the case.
 * docs/configuration.md "API error codes" lists the same (status, code) pairs; test/node/api-codes.test.ts
 * fails when the two differ in either direction. A leaf: it imports nothing (envelope.ts `failureOf` reads it).
 * Codes follow the published v4 API where it has one (7003, 10000, 10001, …); the 1016–1018, 20xxx and 101xx
 * blocks are this service's own. Several kinds may share a pair (7003 at 400 for both zone-name refusals).
 */
export interface ApiCodeRow {
  readonly status: number;
  readonly code: number;
}

export const API_CODES = {
  // Every endpoint (the kit: mount, auth, body, dry-run, envelope).
  "no-route": { status: 404, code: 7003 },
  unauthenticated: { status: 401, code: 10000 },
  forbidden: { status: 403, code: 10001 },
  "invalid-json": { status: 400, code: 10002 },
  "invalid-dry-run": { status: 400, code: 10003 },
  "json-too-deep": { status: 400, code: 10004 },
  "method-not-allowed": { status: 405, code: 10405 },
  "body-too-large": { status: 413, code: 10413 },
  internal: { status: 500, code: 10500 },
  // Tags (src/api/tags/api-failure.ts; the kinds of `TagFailure`).
  "invalid-set-payload": { status: 400, code: 1002 },
  "resource-required": { status: 400, code: 1003 },
  "invalid-resource-type": { status: 400, code: 1006 },
  "invalid-filter": { status: 400, code: 1007 },
  "tag-key-required": { status: 400, code: 1009 },
  "too-many-filters": { status: 400, code: 1010 },
  "key-too-long": { status: 400, code: 1011 },
  "value-too-long": { status: 400, code: 1012 },
  "too-many-values": { status: 400, code: 1013 },
  "invalid-key": { status: 400, code: 1014 },
  "invalid-delete-payload": { status: 400, code: 1015 },
  "limit-reached": { status: 400, code: 1016 },
  "invalid-cursor": { status: 400, code: 1017 },
  "precondition-failed": { status: 412, code: 1018 },
  // Zones and their sections (zone-section.ts `ZoneApiFailure`).
  "invalid-name": { status: 400, code: 7003 },
  "api-host": { status: 400, code: 7003 },
  "not-found": { status: 404, code: 1001 },
  /** A settings write putting a zone in (or out of) an account beyond the token's scope: the 403 of every endpoint. */
  "account-forbidden": { status: 403, code: 10001 },
  "invalid-settings": { status: 400, code: 1004 },
  "plan-forbids": { status: 403, code: 1100 },
  "too-large": { status: 413, code: 10413 },
  "invalid-ruleset": { status: 400, code: 20021 },
  "unknown-phase": { status: 400, code: 20022 },
  "invalid-page": { status: 400, code: 20023 },
  "unknown-page": { status: 404, code: 20024 },
  "unknown-error-code": { status: 404, code: 20025 },
  "invalid-access-rules": { status: 400, code: 20026 },
  "invalid-url-normalization": { status: 400, code: 20027 },
  "invalid-telemetry": { status: 400, code: 20140 },
  "invalid-preview": { status: 400, code: 20030 },
  "preview-limited": { status: 429, code: 20031 },
  "unknown-ruleset": { status: 404, code: 20040 },
  "unknown-rule": { status: 404, code: 20041 },
  "unknown-version": { status: 404, code: 20042 },
  "current-version": { status: 400, code: 20043 },
  "phase-taken": { status: 400, code: 20044 },
  "over-budget": { status: 400, code: 20045 },
  "invalid-asset": { status: 400, code: 20050 },
  "invalid-asset-paging": { status: 400, code: 20050 },
  "unknown-asset": { status: 404, code: 20051 },
  "asset-exists": { status: 409, code: 20052 },
  "asset-limit": { status: 400, code: 20053 },
  "asset-in-use": { status: 409, code: 20054 },
  "asset-fetch-failed": { status: 400, code: 20055 },
  "asset-too-large": { status: 400, code: 20056 },
  // The zone list (`GET /zones`, src/api/zones/list.ts).
  "invalid-zone-list": { status: 400, code: 20060 },
  "zone-list-too-large": { status: 400, code: 20061 },
  // Error analytics (docs/analytics.md "API").
  "invalid-analytics-query": { status: 400, code: 10101 },
  "analytics-range-too-large": { status: 400, code: 10102 },
  "too-many-series": { status: 400, code: 10103 },
  "invalid-ray": { status: 400, code: 10101 },
  "unknown-ray": { status: 404, code: 10404 },
  // The request tracer (`POST /accounts/{account}/request-tracer/trace`, docs/custom-errors.md "Request tracer").
  "invalid-trace": { status: 400, code: 20085 },
  // Error analytics settings (`PUT /zones/{zone}/analytics/settings`, docs/analytics.md "Shards").
  "invalid-analytics-settings": { status: 400, code: 20100 },
  // Tag edits, history and policies (docs/tags-api.md; src/api/tags/api-failure.ts).
  "invalid-bulk-payload": { status: 400, code: 1020 },
  "bulk-too-large": { status: 400, code: 1021 },
  "invalid-policy": { status: 400, code: 1022 },
  "key-not-allowed": { status: 400, code: 1023 },
  "value-not-allowed": { status: 400, code: 1024 },
  "required-key-missing": { status: 400, code: 1025 },
  "key-case": { status: 400, code: 1026 },
  "zone-without-account": { status: 409, code: 1027 },
  // IP access rules at the published path (src/api/access-rules/routes.ts).
  "invalid-access-rule-query": { status: 400, code: 20070 },
  "unknown-access-rule": { status: 404, code: 20071 },
  // An API path on an IP-literal host that is not an API host (src/api/kit/misdirected.ts).
  "not-an-api-host": { status: 404, code: 20072 },
  // The published Ray lookup and the replay (src/api/analytics/ray.ts, src/api/preview/replay.ts).
  "invalid-rayid-query": { status: 400, code: 20090 },
  "invalid-replay": { status: 400, code: 20091 },
  "replay-limited": { status: 429, code: 20092 },
  // Alert policies (docs/analytics.md "Alerts").
  "invalid-alert-policy": { status: 400, code: 20105 },
  "invalid-alert-window": { status: 400, code: 20106 },
  "too-many-alerts": { status: 400, code: 20107 },
  "invalid-webhook-target": { status: 400, code: 20108 },
  "webhook-target-api-host": { status: 400, code: 20109 },
  "webhook-target-private": { status: 400, code: 20120 },
  "unknown-alert": { status: 404, code: 20121 },
  // A zone as code (`PUT /zones/{zone}/bundle`, docs/config-as-code.md); a section's own refusal keeps its code.
  "invalid-bundle": { status: 400, code: 20150 },
  "bundle-precondition": { status: 412, code: 20151 },
  "bundle-stale": { status: 412, code: 20151 },
  "bundle-conflict": { status: 412, code: 20151 },
  "bundle-partial": { status: 409, code: 20152 },
  // Errors by tag (`GET /accounts/{account}/analytics/errors`, docs/analytics.md "Errors by tag").
  "errors-by-tag-too-many-zones": { status: 400, code: 1040 },
} as const satisfies Readonly<Record<string, ApiCodeRow>>;

export type ApiCodeKind = keyof typeof API_CODES;
