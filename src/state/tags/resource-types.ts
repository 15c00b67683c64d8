/**
 * Resource types of the tagging API (docs/tags-api.md, the published enum). Account routes accept only
 * account-level types (docs/tags-api.md); zone-level types are known so a `type` filter naming one is not an error
 * but simply matches nothing here (docs/tags-api.md).
 */

export const ACCOUNT_RESOURCE_TYPES = [
  "access_application",
  "access_group",
  "account",
  "account_ruleset",
  "ai_gateway",
  "alerting_policy",
  "alerting_webhook",
  "cloudflared_tunnel",
  "cws_deployment",
  "cws_policy",
  "cws_policy_set",
  "cws_workload",
  "d1_database",
  "device",
  "durable_object_namespace",
  "gateway_list",
  "gateway_rule",
  "image",
  "infrastructure_target",
  "kv_namespace",
  "load_balancer_monitor",
  "load_balancer_pool",
  "pages_project",
  "queue",
  "r2_bucket",
  "resource_share",
  "stream_live_input",
  "stream_video",
  "vectorize_index",
  "worker",
  "worker_version",
] as const;

export const ZONE_RESOURCE_TYPES = [
  "access_application_policy",
  "api_gateway_operation",
  "custom_certificate",
  "custom_hostname",
  "dns_record",
  "healthcheck",
  "load_balancer",
  "managed_client_certificate",
  "worker_route",
  "zone",
  "zone_ruleset",
] as const;

export type AccountResourceType = (typeof ACCOUNT_RESOURCE_TYPES)[number];

/** The zone-level types this service tags, at `/zones/{zone_id}/tags` (docs/tags-api.md "Zone tags"). */
export const ZONE_TAGGABLE_TYPES = ["zone", "zone_ruleset"] as const;
export type ZoneTaggableType = (typeof ZONE_TAGGABLE_TYPES)[number];

/** Every type a stored resource can have. */
export type TaggableType = AccountResourceType | ZoneTaggableType;

const ZONE_TAGGABLE_SET: ReadonlySet<string> = new Set(ZONE_TAGGABLE_TYPES);

export function isZoneTaggableType(type: string): type is ZoneTaggableType {
  return ZONE_TAGGABLE_SET.has(type);
}

const ACCOUNT_SET: ReadonlySet<string> = new Set(ACCOUNT_RESOURCE_TYPES);
const ANY_SET: ReadonlySet<string> = new Set([...ACCOUNT_RESOURCE_TYPES, ...ZONE_RESOURCE_TYPES]);

export function isAccountResourceType(type: string): type is AccountResourceType {
  return ACCOUNT_SET.has(type);
}

/** Any published type, account- or zone-level (for `type` filters). */
export function isKnownResourceType(type: string): boolean {
  return ANY_SET.has(type);
}

/** `worker_version` is identified by its worker too (docs/tags-api.md); it is the only account type with a parent. */
export function needsWorkerId(type: AccountResourceType): boolean {
  return type === "worker_version";
}
