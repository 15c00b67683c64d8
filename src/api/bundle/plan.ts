/**
 * A bundle's plan (docs/config-as-code.md "Planning"): what applying it would change, per section, as `create`,
 * `update` and `delete` of the items each section keys by (a rule by its `ref`, an access rule or alert policy by its
 * id, an asset by its name, a tag by its key) with the fields that change. Computed from two bundles in their
 * canonical form (the zone as it is, and as the bundle would leave it), so a bundle read and put back is no change,
 * always. Rules and access rules are lists: a rule inserted is one `create`, and a rule whose neighbours changed is
 * not moved; only a rule whose order relative to the other kept rules changed has `position` among its fields.
 * Pure.
 */
import * as z from "zod/mini";
import { described, later, oneOf, type Output } from "../../shared/schema";
import { canonicalText, type JsonValue } from "./canonical";

export const CHANGE_ACTIONS = ["create", "update", "delete"] as const;

/** One change of a plan; which identifier it has depends on its section. */
export const BUNDLE_CHANGE = later(
  () =>
    z.object({
      action: oneOf(CHANGE_ACTIONS),
      ref: z.optional(described(z.nullable(z.string()), "A rule's `ref`; `null`: a new rule, its ref made on apply")),
      index: z.optional(described(z.int(), "Where a new rule or access rule is, in the bundle's list (0-based)")),
      id: z.optional(described(z.nullable(z.string()), "An access rule's or alert policy's id")),
      name: z.optional(described(z.string(), "A custom page's id or an asset's name")),
      key: z.optional(described(z.string(), "A tag's key")),
      fields: z.optional(described(z.array(z.string()), "For `update`: the fields that change")),
    }),
  { id: "BundleChange" },
);
export type BundleChange = Output<ReturnType<typeof BUNDLE_CHANGE>>;

export const BUNDLE_PLAN = later(
  () =>
    z.object({
      changes: described(z.int(), "How many changes in all; 0: the zone matches the bundle"),
      sections: described(
        z.record(z.string(), z.array(BUNDLE_CHANGE())),
        "The sections that change (`settings`, `rulesets.<phase>`, `custom_pages`, …), each with its changes",
      ),
    }),
  { id: "BundlePlan" },
);
export type BundlePlan = Output<ReturnType<typeof BUNDLE_PLAN>>;

type Obj = { readonly [key: string]: JsonValue };

const isObj = (v: JsonValue | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objOf = (v: JsonValue | undefined): Obj => (isObj(v) ? v : {});
const same = (a: JsonValue | undefined, b: JsonValue | undefined): boolean =>
  canonicalText(a ?? null) === canonicalText(b ?? null);

/** The fields of two objects whose values differ (one side missing included), sorted. */
export function changedFields(a: Obj, b: Obj, ignore: readonly string[] = []): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((key) => !ignore.includes(key) && !same(a[key], b[key])).sort();
}

/** An object section (the settings): one update naming its fields, or nothing. */
function objectChanges(a: JsonValue | undefined, b: JsonValue | undefined): BundleChange[] {
  const fields = changedFields(objOf(a), objOf(b));
  return fields.length === 0 ? [] : [{ action: "update", fields }];
}

/** A section that is a value or `null` (URL normalisation, telemetry). */
function optionalChanges(a: JsonValue | undefined, b: JsonValue | undefined): BundleChange[] {
  const was = a ?? null;
  const will = b ?? null;
  if (was === null && will === null) return [];
  if (was === null) return [{ action: "create" }];
  if (will === null) return [{ action: "delete" }];
  return objectChanges(was, will);
}

/** A map by name (pages, assets, alert policies, tags): each entry created, updated (its fields) or deleted. */
function keyedChanges(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  label: "name" | "id" | "key",
): BundleChange[] {
  const was = objOf(a);
  const will = objOf(b);
  const changes: BundleChange[] = [];
  for (const [key, value] of Object.entries(will)) {
    const before = was[key];
    if (before === undefined) changes.push({ action: "create", [label]: key });
    else if (!same(before, value)) {
      const fields = isObj(before) && isObj(value) ? changedFields(before, value) : [];
      changes.push({ action: "update", [label]: key, ...(fields.length > 0 ? { fields } : {}) });
    }
  }
  for (const key of Object.keys(was)) if (!(key in will)) changes.push({ action: "delete", [label]: key });
  return changes;
}

/**
 * The positions (in `order`) of the longest subsequence that is increasing: the kept items that did not move
 * relative to each other. O(n log n) (patience sorting).
 */
function increasingKept(order: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous: number[] = new Array<number>(order.length).fill(-1);
  for (let i = 0; i < order.length; i++) {
    const value = order[i] ?? 0;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((order[tails[mid] ?? 0] ?? 0) < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1] ?? -1;
    tails[lo] = i;
  }
  const kept = new Set<number>();
  for (let i = tails[tails.length - 1] ?? -1; i !== -1; i = previous[i] ?? -1) kept.add(i);
  return kept;
}

/**
 * An ordered list keyed by `idField` (rules by `ref`, access rules by `id`): an id not there before is a create
 * (`null` when the apply makes it: `minted`), one gone a delete, one kept with other fields (or out of its order
 * among the kept ones: `position`) an update.
 */
function listChanges(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  idField: "ref" | "id",
  minted: ReadonlySet<string>,
): BundleChange[] {
  const was = (Array.isArray(a) ? a : []).filter(isObj);
  const will = (Array.isArray(b) ? b : []).filter(isObj);
  const idOf = (item: Obj): string => {
    const id = item[idField];
    return typeof id === "string" ? id : "";
  };
  const before = new Map(was.map((item, index) => [idOf(item), { item, index }]));
  const keptOrder: number[] = [];
  const keptAt: number[] = [];
  will.forEach((item, index) => {
    const old = before.get(idOf(item));
    if (old !== undefined) {
      keptOrder.push(old.index);
      keptAt.push(index);
    }
  });
  const inOrder = increasingKept(keptOrder);
  const moved = new Set(keptAt.filter((_, k) => !inOrder.has(k)));
  const changes: BundleChange[] = [];
  will.forEach((item, index) => {
    const id = idOf(item);
    const old = before.get(id);
    if (old === undefined) {
      changes.push({ action: "create", [idField]: minted.has(id) ? null : id, index });
      return;
    }
    const fields = changedFields(old.item, item, [idField]);
    if (moved.has(index)) fields.push("position");
    if (fields.length > 0) changes.push({ action: "update", [idField]: id, fields });
  });
  const kept = new Set(will.map(idOf));
  for (const item of was) if (!kept.has(idOf(item))) changes.push({ action: "delete", [idField]: idOf(item) });
  return changes;
}

/** A phase's ruleset: its name and description (no identifier), then its rules by `ref`. */
function rulesetChanges(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  minted: ReadonlySet<string>,
): BundleChange[] {
  const was = objOf(a);
  const will = objOf(b);
  const head = changedFields(was, will, ["rules"]);
  return [
    ...(head.length > 0 ? [{ action: "update" as const, fields: head }] : []),
    ...listChanges(was.rules, will.rules, "ref", minted),
  ];
}

/** The plan from the bundle as it is to the bundle as it would be (both canonical); `minted`: ids the apply makes. */
export function planBundle(current: Obj, desired: Obj, minted: ReadonlySet<string> = new Set()): BundlePlan {
  const sections: Record<string, BundleChange[]> = {};
  const add = (section: string, changes: BundleChange[]): void => {
    if (changes.length > 0) sections[section] = changes;
  };
  add("settings", objectChanges(current.settings, desired.settings));
  const phases = new Set([...Object.keys(objOf(current.rulesets)), ...Object.keys(objOf(desired.rulesets))]);
  for (const phase of [...phases].sort())
    add(`rulesets.${phase}`, rulesetChanges(objOf(current.rulesets)[phase], objOf(desired.rulesets)[phase], minted));
  add("custom_pages", keyedChanges(current.custom_pages, desired.custom_pages, "name"));
  add("custom_assets", keyedChanges(current.custom_assets, desired.custom_assets, "name"));
  add("access_rules", listChanges(objOf(current.access_rules).rules, objOf(desired.access_rules).rules, "id", minted));
  add("url_normalization", optionalChanges(current.url_normalization, desired.url_normalization));
  add("telemetry", optionalChanges(current.telemetry, desired.telemetry));
  add("alert_policies", keyedChanges(current.alert_policies, desired.alert_policies, "id"));
  add("tags", keyedChanges(current.tags, desired.tags, "key"));
  const changes = Object.values(sections).reduce((n, list) => n + list.length, 0);
  return { changes, sections };
}
