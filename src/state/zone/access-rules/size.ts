/**
 * The byte size of an IP access-rule list as `GET /zones/{zone}/access_rules` renders it, and the limit that makes
 * every list GET returns a body PUT accepts (a 10,000-rule list of 1,213,135 bytes came back from GET and
 * was refused by PUT's 1 MiB body limit). Pure.
 *
 * The limit is derived, not chosen: `ACCESS_RULES_MAX_BYTES` is exactly the rendering of the largest list with the
 * longest legal values and no notes — `ACCESS_RULE_LIMITS.maxRules` copies of `LONGEST_RULE`. Notes are bounded per
 * rule (1,024 characters) but a list of 10,000 × 1,024 escaped characters would be 62 MB, which neither a request
 * nor the zone's stored document (one Durable Object value, ≤ 2 MB) could hold; so notes share the list's byte
 * budget instead of adding to it. Every list PUT stores is checked against the same number, which makes the
 * round trip hold by construction: stored list ≤ limit ⇒ GET's `result` ≤ limit ⇒ PUT's body limit admits it.
 */
import { ACCESS_RULE_LIMITS } from "./validate";
import { presentAccessRules, type AccessRules, type PresentedAccessRule } from "./types";

/**
 * The longest rule without notes. Every field at its longest legal canonical value: ids are 32 hex characters;
 * `ip_range` is the longest target name; the longest canonical value is a full eight-group IPv6 address (RFC 5952:
 * 8 × 4 hex digits and 7 colons, nothing to compress) with a three-digit prefix. IPv4 (`255.255.255.255/32`), the
 * IPv4-mapped form (`::ffff:255.255.255.255/128`) and countries are shorter. All ASCII, so characters = bytes.
 */
export const LONGEST_RULE: PresentedAccessRule = {
  id: "f".repeat(32),
  mode: "block",
  configuration: { target: "ip_range", value: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128" },
  notes: "",
};

const LIST_OPEN = '{"rules":[';
const LIST_CLOSE = "]}";

/**
 * Bytes of `{"rules":[…]}` holding `maxRules` longest rules, comma-separated: 1,600,011 bytes. It is also the body
 * limit of `PUT /zones/{zone}/access_rules`, checked while the body streams in, before any parsing (docs/configuration.md),
 * and the only management body limit above 1 MiB (docs/configuration.md).
 */
export const ACCESS_RULES_MAX_BYTES =
  LIST_OPEN.length +
  ACCESS_RULE_LIMITS.maxRules * JSON.stringify(LONGEST_RULE).length +
  (ACCESS_RULE_LIMITS.maxRules - 1) +
  LIST_CLOSE.length;

const encoder = new TextEncoder();

/** UTF-8 bytes of the list exactly as GET renders it in `result` (compact JSON, canonical values, ids, notes). */
export function presentedBytes(rules: AccessRules): number {
  return encoder.encode(JSON.stringify(presentAccessRules(rules))).byteLength;
}
