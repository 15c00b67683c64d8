/**
 * The list query of `GET /zones/{zone}/firewall/access_rules/rules` (docs/producers.md "IP access rules"), with the
 * published parameters: `page`, `per_page`, the filters `mode`, `notes` (a case-insensitive substring),
 * `configuration.target`, `configuration.value`, combined by `match` (`all`, default, or `any`), and `order` /
 * `direction`. An unknown, repeated or malformed parameter is refused (400, 20070) rather than ignored: a filter
 * the listing skipped would answer a wrong list. Pure; the list is the zone's (at most 10,000 rules), filtered and
 * sliced in memory.
 */
import { err, ok, type Result } from "../../shared/result";
import { ACCESS_RULE_TARGETS, type AccessRule } from "../../state/zone/access-rules/types";

export const ACCESS_RULE_LIST = {
  defaultPerPage: 20,
  /** The published maximum of this listing. */
  maxPerPage: 1000,
  maxPage: 1_000_000,
  /** A filter value longer than any stored one cannot match; refused rather than scanned. */
  maxFilterLength: 1024,
} as const;

/** The modes the published API names; only `block` is stored here, the others are valid filters matching nothing. */
const PUBLISHED_MODES = ["block", "challenge", "whitelist", "js_challenge", "managed_challenge"] as const;
/** The targets the published API names (`asn` and `ip6` are not stored here: valid filters matching nothing). */
const PUBLISHED_TARGETS = [...ACCESS_RULE_TARGETS, "asn", "ip6"] as const;
const ORDERS = ["configuration.target", "configuration.value", "mode"] as const;

type Order = (typeof ORDERS)[number];

export interface AccessRuleQuery {
  readonly page: number;
  readonly perPage: number;
  readonly filters: readonly ((rule: AccessRule) => boolean)[];
  readonly match: "all" | "any";
  readonly order: Order | null;
  readonly direction: "asc" | "desc";
}

const PARAMETERS = new Set([
  "page",
  "per_page",
  "mode",
  "notes",
  "configuration.target",
  "configuration.value",
  "match",
  "order",
  "direction",
]);

/** The query of a list request, or the message of its 400. */
export function readAccessRuleQuery(url: URL): Result<AccessRuleQuery, string> {
  const params = url.searchParams;
  for (const name of new Set(params.keys())) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    if (!PARAMETERS.has(name))
      return err(`unknown parameter ${shown}: this listing takes ${[...PARAMETERS].join(", ")}`);
    if (params.getAll(name).length > 1) return err(`${shown} must be given once`);
    if ((params.get(name) ?? "").length > ACCESS_RULE_LIST.maxFilterLength)
      return err(`${shown} is longer than ${ACCESS_RULE_LIST.maxFilterLength} characters`);
  }
  const page = readInt(params.get("page"), "page", 1, ACCESS_RULE_LIST.maxPage);
  if (typeof page === "string") return err(page);
  const perPage = readInt(
    params.get("per_page"),
    "per_page",
    ACCESS_RULE_LIST.defaultPerPage,
    ACCESS_RULE_LIST.maxPerPage,
  );
  if (typeof perPage === "string") return err(perPage);

  const filters: ((rule: AccessRule) => boolean)[] = [];
  const mode = params.get("mode");
  if (mode !== null) {
    if (!isOneOf(PUBLISHED_MODES, mode)) return err(`mode must be one of ${PUBLISHED_MODES.join(", ")}`);
    filters.push((r) => r.mode === mode);
  }
  const notes = params.get("notes");
  if (notes !== null) {
    const needle = notes.toLowerCase();
    filters.push((r) => r.notes.toLowerCase().includes(needle));
  }
  const target = params.get("configuration.target");
  if (target !== null) {
    if (!isOneOf(PUBLISHED_TARGETS, target))
      return err(`configuration.target must be one of ${PUBLISHED_TARGETS.join(", ")}`);
    filters.push((r) => r.target === target);
  }
  const value = params.get("configuration.value");
  if (value !== null) {
    // Stored values are canonical (lower-case IPv6, upper-case country): compared without regard to case.
    const wanted = value.trim().toLowerCase();
    filters.push((r) => r.value.toLowerCase() === wanted);
  }
  const match = params.get("match") ?? "all";
  if (match !== "all" && match !== "any") return err("match must be all or any");
  const order = params.get("order");
  if (order !== null && !isOneOf(ORDERS, order)) return err(`order must be one of ${ORDERS.join(", ")}`);
  const direction = params.get("direction") ?? "asc";
  if (direction !== "asc" && direction !== "desc") return err("direction must be asc or desc");
  return ok({ page, perPage, filters, match, order, direction });
}

/** One page of the rules the query selects, and how many it selects in all. */
export function runAccessRuleQuery(
  rules: readonly AccessRule[],
  query: AccessRuleQuery,
): { readonly page: readonly AccessRule[]; readonly total: number } {
  const { filters, match } = query;
  let selected =
    filters.length === 0
      ? [...rules]
      : rules.filter((r) => (match === "all" ? filters.every((f) => f(r)) : filters.some((f) => f(r))));
  if (query.order !== null) {
    const key = sortKey(query.order);
    const sign = query.direction === "asc" ? 1 : -1;
    // Stable: rules of equal key keep their stored (creation) order.
    selected = selected.sort((a, b) => sign * compare(key(a), key(b)));
  } else if (query.direction === "desc") selected.reverse();
  const start = (query.page - 1) * query.perPage;
  return { page: selected.slice(start, start + query.perPage), total: selected.length };
}

function sortKey(order: Order): (rule: AccessRule) => string {
  switch (order) {
    case "configuration.target":
      return (r) => r.target;
    case "configuration.value":
      return (r) => r.value;
    case "mode":
      return (r) => r.mode;
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** A positive integer, or the message saying what it must be. */
function readInt(value: string | null, name: string, fallback: number, max: number): number | string {
  if (value === null) return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(value) || Number(value) > max) return `${name} must be an integer from 1 to ${max}`;
  return Number(value);
}
