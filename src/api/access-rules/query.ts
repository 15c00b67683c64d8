/**
 * The list query of `GET /zones/{zone}/firewall/access_rules/rules` (docs/producers.md "IP access rules"), with the
 * published parameters: `page`, `per_page`, the filters `mode`, `notes` (a case-insensitive substring),
 * `configuration.target`, `configuration.value`, combined by `match` (`all`, default, or `any`), and `order` /
 * `direction`. An unknown, repeated or malformed parameter is refused (400, 20070) rather than ignored: a filter
 * the listing skipped would answer a wrong list. Pure; the list is the zone's (at most 10,000 rules), filtered and
 * sliced in memory.
 */
import * as z from "zod/mini";
import { fields, later, oneOf, parseWith, text, type Output } from "../../shared/schema";
import type { Issues } from "../../shared/validation";
import { PAGE_PARAMETERS, pageFields, queryObject } from "../kit/query";
import { ok, type Result } from "../../shared/result";
import { ACCESS_RULE_TARGETS, type AccessRule } from "../../state/zone/access-rules/types";

const ACCESS_RULE_LIST = {
  defaultPerPage: 20,
  /** The published maximum of this listing. */
  maxPerPage: 1000,
  /** A filter value longer than any stored one cannot match; refused rather than scanned. */
  maxFilterLength: 1024,
} as const;

/** The modes the published API names; only `block` is stored here, the others are valid filters matching nothing. */
const PUBLISHED_MODES = ["block", "challenge", "whitelist", "js_challenge", "managed_challenge"] as const;
/** The targets the published API names (`asn` and `ip6` are not stored here: valid filters matching nothing). */
const PUBLISHED_TARGETS = [...ACCESS_RULE_TARGETS, "asn", "ip6"] as const;
const ORDERS = ["configuration.target", "configuration.value", "mode"] as const;

type Order = (typeof ORDERS)[number];

const filterText = () =>
  text({ max: ACCESS_RULE_LIST.maxFilterLength }, `must be at most ${ACCESS_RULE_LIST.maxFilterLength} characters`);

/**
 * The list query as a schema (its numerals read as numbers first): the validator and the OpenAPI parameters
 * (`queryParameters`), so every enum, bound and default is written here once.
 */
export const ACCESS_RULE_QUERY = later(
  () =>
    fields(
      {
        ...pageFields(ACCESS_RULE_LIST),
        mode: z.optional(oneOf(PUBLISHED_MODES)),
        notes: z.optional(filterText()),
        "configuration.target": z.optional(oneOf(PUBLISHED_TARGETS)),
        "configuration.value": z.optional(filterText()),
        match: z._default(oneOf(["all", "any"]), "all"),
        order: z.optional(oneOf(ORDERS)),
        direction: z._default(oneOf(["asc", "desc"]), "asc"),
      },
      "is not a parameter of this listing (page, per_page, mode, notes, configuration.target, configuration.value, match, order, direction)",
    ),
  { id: "AccessRuleQuery", example: { per_page: 50, "configuration.target": "country", order: "mode" } },
);

export interface AccessRuleQuery {
  readonly page: number;
  readonly perPage: number;
  readonly filters: readonly ((rule: AccessRule) => boolean)[];
  readonly match: Output<typeof ACCESS_RULE_QUERY>["match"];
  readonly order: Order | null;
  readonly direction: Output<typeof ACCESS_RULE_QUERY>["direction"];
}

/** The query of a list request, or the issues of its 400. */
export function readAccessRuleQuery(url: URL): Result<AccessRuleQuery, Issues> {
  const given = queryObject(url.searchParams, PAGE_PARAMETERS);
  if (!given.ok) return given;
  const parsed = parseWith(ACCESS_RULE_QUERY, given.value, { cap: 1 });
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const filters: ((rule: AccessRule) => boolean)[] = [];
  if (q.mode !== undefined) filters.push((r) => r.mode === q.mode);
  if (q.notes !== undefined) {
    const needle = q.notes.toLowerCase();
    filters.push((r) => r.notes.toLowerCase().includes(needle));
  }
  const target = q["configuration.target"];
  if (target !== undefined) filters.push((r) => r.target === target);
  const value = q["configuration.value"];
  if (value !== undefined) {
    // Stored values are canonical (lower-case IPv6, upper-case country): compared without regard to case.
    const wanted = value.trim().toLowerCase();
    filters.push((r) => r.value.toLowerCase() === wanted);
  }
  return ok({
    page: q.page,
    perPage: q.per_page,
    filters,
    match: q.match,
    order: q.order ?? null,
    direction: q.direction,
  });
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
