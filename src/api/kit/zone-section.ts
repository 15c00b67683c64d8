/**
 * The kit of every zone-section route (`/zones/{zone}` and its sections: access_rules, custom_pages, rulesets
 * entrypoints, url_normalization, preview; docs/configuration.md). What each of them did by hand is here once:
 *
 *   zone name (400, 7003) → the route's own checks (the body) → one edit (src/state/zone/edits.ts) sent to the
 *   zone's writer of record (`editZone`), which applies it inside its serialised step to the document as it is then
 *   (not configured: 404, 1001), or, on a dry run, applied to the document as read and stored nowhere → the new
 *   document visible on this isolate at once (docs/configuration.md "The writer of record")
 *
 * and every failure on the way is a `ZoneApiFailure` value that ONE exhaustive switch (`zoneApiFailure`) maps to a
 * response: the message is written at its case, the HTTP status and v4 code come from the one code table
 * (codes.ts) under the same kind, so a kind the table lacks does not compile. The switch has no `default`, and its
 * `never` check makes a new kind a compile error, so no failure ships unmapped. Domain failures are all named kinds;
 * only the kit's body reader passes a shaped failure through (`body`, generic to every endpoint). The plan-forbids
 * answer (403, code 1100, docs/custom-errors.md) is one of its cases.
 */
import { logEvent } from "../../shared/log";
import { API_CODES, type ApiCodeKind } from "./codes";
import { API_FAILURES, apiFailureResponse, failureOf, type ApiFailure, type ApiMessage } from "./envelope";
import type { ApiContext } from "./types";
import { normaliseHostname } from "../../shared/host";
import { newRayId } from "../../shared/ray";
import { randomId } from "../../shared/crypto";
import { causeOf, err, ok, type Result } from "../../shared/result";
import type { Issues } from "../../shared/validation";
import { remember } from "../../state/zone/cache";
import { PAGE_IDS, type PageFailure } from "../../state/zone/custom-pages/validate";
import { ASSET_LIMITS, type AssetFailure } from "../../state/zone/custom-pages/assets";
import { PHASES } from "../../state/zone/rulesets/phases";
import type { RulesetEditFailure } from "../../state/zone/rulesets/edits";
import {
  applyZoneEdit,
  type AccountForbidden,
  type ZoneEdit,
  type ZoneEditFailure,
  type ZoneEdited,
  type ZoneWriteFailure,
} from "../../state/zone/edits";
import { parseZoneName, type Zone, type ZoneDocument } from "../../state/zone/schema";
import { parseDocument, type StoreFailure } from "../../state/zone/store";
import type { VersionFailure, ZoneWriter } from "../../state/zone/writer";

/** Everything that can go wrong in a zone-section route, as values. */
export type ZoneApiFailure =
  | { readonly kind: "invalid-name"; readonly why: string }
  /** The zone is named after a host of the management API (API_HOSTS): refused for every write but DELETE. */
  | { readonly kind: "api-host"; readonly name: string }
  | { readonly kind: "invalid-settings"; readonly issues: Issues }
  | { readonly kind: "invalid-access-rules"; readonly issues: Issues }
  | { readonly kind: "invalid-url-normalization"; readonly issues: Issues }
  | { readonly kind: "invalid-telemetry"; readonly issues: Issues }
  | { readonly kind: "unknown-page"; readonly id: string }
  | { readonly kind: "unknown-error-code"; readonly code: string }
  /** Every failure of a rulesets API write (unknown-phase, unknown-ruleset, unknown-rule, phase-taken, …). */
  | RulesetEditFailure
  | VersionFailure
  | PageFailure
  | AssetFailure
  | ZoneEditFailure
  | StoreFailure
  /** A draft preview's body or described request refused (src/api/preview/draft.ts). */
  | { readonly kind: "invalid-preview"; readonly issues: Issues }
  /** A request tracer body refused (src/api/tracer/tracer.ts). */
  | { readonly kind: "invalid-trace"; readonly issues: Issues }
  /** Too many draft previews of the zone by one token (src/api/explain/bound.ts): 429 with `Retry-After`. */
  | {
      readonly kind: "preview-limited";
      readonly why: "concurrent" | "rate";
      readonly retryAfter: number;
      readonly bounds: { readonly concurrent: number; readonly burst: number; readonly perSecond: number };
    }
  /** An access rule list's query refused (src/api/access-rules/query.ts). */
  | { readonly kind: "invalid-access-rule-query"; readonly issues: Issues }
  /** A custom error asset list's `page` / `per_page` refused (src/api/custom-pages/assets.ts). */
  | { readonly kind: "invalid-asset-paging"; readonly issues: Issues }
  /** The error analytics query refused (src/api/analytics/params.ts, by-tag.ts): each issue names its parameter. */
  | { readonly kind: "invalid-analytics-query"; readonly issues: Issues }
  /** The window over its step's range or before retention; `message` names the limit. */
  | { readonly kind: "analytics-range-too-large"; readonly message: string }
  | { readonly kind: "too-many-series"; readonly series: number; readonly limit: number }
  /** `PUT /zones/{zone}/analytics/settings` refused (src/api/analytics/routes.ts). */
  | { readonly kind: "invalid-analytics-settings"; readonly issues: Issues }
  /** An alert policy or its webhook target refused (src/state/analytics/alerts.ts); `message` names the field. */
  | {
      readonly kind:
        | "invalid-alert-policy"
        | "invalid-alert-window"
        | "invalid-webhook-target"
        | "webhook-target-api-host"
        | "webhook-target-private";
      readonly message: string;
    }
  | { readonly kind: "too-many-alerts"; readonly limit: number }
  | { readonly kind: "unknown-alert"; readonly id: string }
  | { readonly kind: "invalid-ray"; readonly ray: string }
  | { readonly kind: "unknown-ray"; readonly ray: string; readonly days: number }
  /** The published Ray lookup's query refused (src/api/analytics/ray.ts): each issue names its parameter. */
  | { readonly kind: "invalid-rayid-query"; readonly issues: Issues }
  /** A bundle refused before any section is applied (src/api/bundle/): each issue names its section and field. */
  | { readonly kind: "invalid-bundle"; readonly issues: Issues }
  /** `If-Match` on a bundle write is not the bundle's current ETag (docs/config-as-code.md): 412. */
  | { readonly kind: "bundle-precondition"; readonly given: string; readonly current: string }
  /**
   * A bundle refused because its tags or alert policies were changed by someone else after it was read: nothing of
   * it is left applied (what was written before the refusal was put back; docs/config-as-code.md "What atomic
   * means"): 412, as a stale zone.
   */
  | { readonly kind: "bundle-conflict"; readonly section: string; readonly why: string }
  /**
   * A bundle refused part way whose writes could not all be put back, because the zone or its tags were written
   * again meanwhile: what stays applied, what was refused and why (docs/config-as-code.md "What atomic means").
   */
  | {
      readonly kind: "bundle-partial";
      readonly applied: readonly string[];
      readonly failed: string;
      readonly why: string;
    }
  /** A replay's body refused (src/api/preview/replay.ts). */
  | { readonly kind: "invalid-replay"; readonly issues: Issues }
  /** Too many replays of the zone by one token (src/api/explain/bound.ts): 429 with `Retry-After`. */
  | { readonly kind: "replay-limited"; readonly why: "concurrent" | "rate"; readonly retryAfter: number }
  /**
   * The one kind that carries a shaped failure: the kit's body reader (`readJsonBody`, body.ts) refuses a body the
   * same way for every endpoint, zone or not (413 over its limit, 400 10002 not JSON, 400 10004 too deep), so its
   * failures are generic HTTP ones, already named in the code table; a zone route passes them on unchanged. No
   * domain failure may use it: those are kinds above, each mapped in `zoneApiFailure`.
   */
  | { readonly kind: "body"; readonly failure: ApiFailure };

/** A handler's answer: a Response, or a failure for the one switch. */
export type ZoneAnswer = Result<Response, ZoneApiFailure>;

/** The one mapping of zone-section failures to HTTP status and v4 code (Cloudflare's codes where one exists). */
export function zoneApiFailure(failure: ZoneApiFailure, zone: string): ApiFailure {
  switch (failure.kind) {
    case "invalid-name":
      return failureOf(failure.kind, `Invalid zone identifier: ${failure.why}`);
    case "api-host":
      return failureOf(
        failure.kind,
        `Invalid zone identifier: ${failure.name} is a host of the management API (API_HOSTS), however it is ` +
          "spelled (case, trailing dot, percent-encoding): a zone of that name would answer on the API's own " +
          "origin; only GET and DELETE accept it, so a zone stored before this check can be read and removed " +
          '(docs/configuration.md "Zone names")',
      );
    case "invalid-settings":
      return invalid(failure.issues, failure.kind, "Invalid zone setting: ", " ");
    case "invalid-ruleset":
      return invalid(failure.issues, failure.kind, "", ": ");
    case "over-budget":
      return invalid(failure.issues, failure.kind, "", ": ");
    case "invalid-page":
      return invalid(failure.issues, failure.kind, "", ": ");
    case "invalid-access-rules":
      return invalid(failure.issues, failure.kind, "", " ");
    case "unknown-access-rule":
      return failureOf(
        failure.kind,
        `No IP access rule ${JSON.stringify(failure.id)} in zone ${zone} (list them with GET /zones/{zone}/firewall/access_rules/rules)`,
      );
    case "invalid-access-rule-query":
      return invalid(failure.issues, failure.kind, "", " ");
    case "invalid-url-normalization":
      return invalid(failure.issues, failure.kind, "Invalid url_normalization: ", " ");
    case "invalid-telemetry":
      return invalid(failure.issues, failure.kind, "Invalid telemetry: ", " ");
    case "unknown-phase":
      return failureOf(failure.kind, `Unknown phase ${JSON.stringify(failure.phase)}: one of ${PHASES.join(", ")}`);
    case "unknown-ruleset":
      return failureOf(
        failure.kind,
        `No ruleset ${JSON.stringify(failure.id)} in zone ${zone} (a ruleset id is 32 hex characters; list them ` +
          "with GET /zones/{zone}/rulesets)",
      );
    case "unknown-rule":
      return failureOf(
        failure.kind,
        `No rule ${JSON.stringify(failure.ruleId)} in ruleset ${failure.rulesetId}; nothing was changed`,
      );
    case "unknown-version":
      return failureOf(
        failure.kind,
        `No version ${JSON.stringify(failure.version)} of ruleset ${failure.rulesetId} (deleted, never written, ` +
          "or past the versions kept)",
      );
    case "current-version":
      return failureOf(
        failure.kind,
        `Version ${failure.version} is the current version of ruleset ${failure.rulesetId} and cannot be deleted ` +
          "(delete the ruleset, or write a new version first); nothing was deleted",
      );
    case "phase-taken":
      return failureOf(
        failure.kind,
        `The zone already has its ${failure.phase} ruleset (${failure.id}): a zone has one ruleset per phase; ` +
          "update that one (PUT /zones/{zone}/rulesets/{id}); nothing was stored",
      );
    case "unknown-page":
      return failureOf(
        failure.kind,
        `Unknown custom page ${JSON.stringify(failure.id)}: one of ${PAGE_IDS.join(", ")}`,
      );
    case "invalid-asset":
      return invalid(failure.issues, failure.kind, "Invalid custom asset: ", " ");
    case "unknown-asset":
      return failureOf(failure.kind, `No custom asset named ${JSON.stringify(failure.name)} in ${zone}`);
    case "asset-exists":
      return failureOf(
        failure.kind,
        `A custom asset named ${JSON.stringify(failure.name)} already exists; update it with PUT …/custom_pages/assets/${failure.name}`,
      );
    case "asset-limit":
      return failureOf(
        failure.kind,
        `The ${failure.plan} plan allows at most ${failure.limit} custom assets per zone; delete one first`,
      );
    case "asset-in-use": {
      const rules = failure.rules
        .map((r) => `rules[${r.index}] (id ${r.id}${r.description === "" ? "" : `, ${JSON.stringify(r.description)}`})`)
        .join(", ");
      return failureOf(
        failure.kind,
        `The custom asset ${JSON.stringify(failure.name)} is used by the http_custom_errors rule${failure.rules.length > 1 ? "s" : ""} ` +
          `${rules}: change or delete ${failure.rules.length > 1 ? "them" : "it"} first; nothing was deleted`,
      );
    }
    case "asset-fetch-failed":
      return failureOf(
        failure.kind,
        `Could not make a custom asset from ${failure.url}: ${failure.reason}; nothing was stored`,
      );
    case "asset-too-large":
      return failureOf(
        failure.kind,
        `The custom asset would be ${failure.bytes} bytes (${failure.what}), over the limit of ${failure.limit} ` +
          `bytes (${ASSET_LIMITS.bytes / 1_000_000} MB); nothing was stored`,
      );
    case "unknown-error-code":
      return failureOf(failure.kind, `No error code ${JSON.stringify(failure.code)} in the catalog`);
    case "plan-forbids":
      // docs/custom-errors.md: a feature the zone's plan lacks is 403 with code 1100, whichever section asks.
      return failureOf(
        failure.kind,
        `The ${failure.plan} plan cannot use ${failure.feature}: ${failure.reason} (docs/custom-errors.md)`,
      );
    case "not-found":
      return failureOf(failure.kind, `Zone not found: ${zone}`);
    case "account-forbidden":
      return failureOf(failure.kind, accountForbiddenMessage(failure, zone));
    case "unavailable":
    case "corrupt": {
      // CONFIG (or the writer) failing is the service's own failure: a 500 with a ray to quote, logged once.
      const ray = newRayId();
      logEvent("api_error", { ray, zone, code: 500, cause: failure.cause });
      return API_FAILURES.internal(ray);
    }
    case "too-large":
      // The request is fine on its own; the zone's whole configuration would outgrow what one zone can store.
      return failureOf(
        failure.kind,
        `The zone's configuration would be ${failure.bytes} bytes, over its limit of ${failure.limit} ` +
          "bytes (rules, notes and descriptions of every section together); nothing was stored",
      );
    case "invalid-analytics-settings":
    case "invalid-asset-paging":
    case "invalid-analytics-query":
    case "invalid-rayid-query":
      return invalid(failure.issues, failure.kind, "", " ");
    case "invalid-preview":
    case "invalid-trace":
      return invalid(failure.issues, failure.kind, "", ": ");
    case "preview-limited": {
      const { concurrent, burst, perSecond } = failure.bounds;
      const bound =
        failure.why === "concurrent"
          ? `${concurrent} running at once`
          : `a burst of ${burst}, then ${perSecond} per second`;
      return failureOf(
        failure.kind,
        `Too many draft previews of ${zone} for this token (${bound}); retry after ${failure.retryAfter} s ` +
          '(docs/custom-errors.md "Draft preview")',
        { "Retry-After": String(failure.retryAfter) },
      );
    }
    case "too-many-alerts":
      return failureOf(
        failure.kind,
        `${zone} already has ${failure.limit} alert policies, the most a zone may hold; delete one first`,
      );
    case "unknown-alert":
      return failureOf(failure.kind, `No alert policy ${JSON.stringify(failure.id.slice(0, 64))} in zone ${zone}`);
    case "invalid-alert-policy":
    case "invalid-alert-window":
    case "invalid-webhook-target":
    case "webhook-target-api-host":
    case "webhook-target-private":
    case "analytics-range-too-large":
      return failureOf(failure.kind, failure.message);
    case "too-many-series":
      return failureOf(
        failure.kind,
        `group_by yields ${failure.series} series, over the limit of ${failure.limit}; add a filter or group by fewer dimensions`,
      );
    case "invalid-ray":
      // Quoted, with `<`, `>` and `&` as JSON escapes: the text is the client's own, echoed.
      return failureOf(
        failure.kind,
        `a Ray ID is 16 lower-case hex characters; got ${JSON.stringify(failure.ray).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`,
      );
    case "unknown-ray":
      return failureOf(
        failure.kind,
        `No error with Ray ID ${failure.ray} recorded for zone ${zone} in the last ${failure.days} days`,
      );
    case "invalid-replay":
      return invalid(failure.issues, failure.kind, "", ": ");
    case "replay-limited":
      return failureOf(
        failure.kind,
        `Too many replays of ${zone} for this token (${failure.why === "concurrent" ? "one runs at a time" : "past the rate"}); ` +
          `retry after ${failure.retryAfter} s (docs/custom-errors.md "Replay")`,
        { "Retry-After": String(failure.retryAfter) },
      );
    case "invalid-bundle":
      return invalid(failure.issues, failure.kind, "Invalid bundle: ", " ");
    case "bundle-section": {
      // The section's own failure (its status and code), each message naming the section first.
      const inner = zoneApiFailure(failure.failure, zone);
      const errors = inner.errors.map((e) => ({ ...e, message: `Bundle section ${failure.section}: ${e.message}` }));
      return { ...inner, errors };
    }
    case "bundle-stale":
      return failureOf(
        failure.kind,
        `Zone ${zone} changed since the bundle was read (version ${failure.planned}, now ` +
          `${failure.current ?? "none"}): read it again (GET /zones/{zone}/bundle) and plan again; nothing was changed`,
      );
    case "bundle-precondition":
      return failureOf(
        failure.kind,
        `If-Match ${failure.given} is not the bundle's current ETag ${failure.current}: the zone changed since it ` +
          "was read; read it again and plan again; nothing was changed",
      );
    case "bundle-conflict":
      return failureOf(
        failure.kind,
        `Zone ${zone}'s ${failure.section} changed since the bundle was read (${failure.why}): read it again ` +
          "(GET /zones/{zone}/bundle) and plan again; nothing was changed",
      );
    case "bundle-partial":
      return failureOf(
        failure.kind,
        `The bundle was applied only in part: ${failure.failed} was refused (${failure.why}, a change made at the ` +
          `same time), and ${failure.applied.join(", ")} could not be put back, being written again meanwhile; read ` +
          "the bundle again, plan and apply again",
      );
    case "body":
      return failure.failure;
  }
  // No `default`: every kind returns above, so `failure` is `never` here; a new kind without a case fails to compile.
  const unmapped: never = failure;
  return unmapped;
}

/** Why a settings write was refused by the token's account scope (docs/configuration.md "Zone accounts"). */
function accountForbiddenMessage(failure: AccountForbidden, zone: string): string {
  const base = "Authorization error: ";
  switch (failure.why) {
    case "not-yours":
      return `${base}the token may not put a zone in account ${failure.account ?? ""} (not one of its accounts); nothing was stored`;
    case "stored-not-yours":
      return `${base}zone ${zone} is not in one of the token's accounts; nothing was stored`;
    case "would-leave-reach":
      return (
        `${base}this token reaches ${zone} through its account only, so the zone must name one of its accounts ` +
        "(account.id); nothing was stored"
      );
  }
}

/**
 * A capped issue list as envelope errors: `prefix + path + separator + message` for each listed issue (`path` `""`
 * is the body as a whole: the message alone), then one line counting those not listed.
 */
function invalid(issues: Issues, kind: ApiCodeKind, prefix: string, separator: string): ApiFailure {
  const { status, code } = API_CODES[kind];
  const errors: ApiMessage[] = issues.listed.map((i) => ({
    code,
    message: `${prefix}${i.path === "" ? "" : i.path + separator}${i.message}`,
  }));
  if (issues.more > 0) errors.push({ code, message: `${prefix}and ${issues.more} more errors not listed` });
  return { status, errors };
}

/** The zone path segment, percent-decoded, lower-cased, without a trailing dot; a malformed escape kept as sent. */
export function zoneParam(params: Readonly<Record<string, string>>): string {
  const segment = params.zone ?? "";
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // `%zz`: kept as sent; a scoped token never matches it (403) and the name check refuses the `%` (400).
  }
  return normaliseHostname(decoded);
}

/** The route target of every zone endpoint: the zone named in the path, for the token's zone scope. */
export function zoneTarget(
  params: Readonly<Record<string, string>>,
): Result<{ kind: "zone"; name: string }, ApiFailure> {
  return ok({ kind: "zone", name: zoneParam(params) });
}

/**
 * Methods that may name a zone after an API host: reads, and DELETE, so that a zone stored before the check (or
 * named before API_HOSTS listed its name) can still be seen and removed. Every other method writes or renders
 * a zone's configuration and is refused.
 */
const API_HOST_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "DELETE"]);

/**
 * A zone-section handler: the zone name is validated first (400), and whatever failure the handler returns goes
 * through `zoneApiFailure`, the one switch. This is the one place every zone route takes its name from, so the
 * API-host check below covers them all (zones, rulesets, custom pages and assets, access rules, URL normalisation,
 * previews, analytics).
 */
export function zoneHandler(
  handle: (c: ApiContext, zone: string) => Promise<ZoneAnswer>,
): (c: ApiContext) => Promise<Response> {
  return async (c) => {
    const name = parseZoneName(zoneParam(c.params));
    if (!name.ok) return apiFailureResponse(zoneApiFailure({ kind: "invalid-name", why: name.error }, ""));
    // A zone named after an API host would have its custom error rules, pages and assets served on the API's own
    // origin (the service endpoints answer on every host), where a script could read what the analytics page holds
    // (docs/configuration.md "Zone names"). The name is compared as `zoneOf` compares a request's host: lower-case,
    // no trailing dot, no port (a port is already refused by `parseZoneName`).
    if (c.settings.apiHosts.has(name.value) && !API_HOST_METHODS.has(c.request.method)) {
      return apiFailureResponse(zoneApiFailure({ kind: "api-host", name: name.value }, name.value));
    }
    const answer = await handle(c, name.value);
    return answer.ok ? answer.value : apiFailureResponse(zoneApiFailure(answer.error, name.value));
  };
}

/**
 * The writer's RPC surface as the class declares it. Its values are plain JSON (structured clone keeps them as
 * they are), so the stub is typed by the class itself rather than by the RPC mapping, which turns the document's
 * `unknown` sections into `never`.
 */
export type WriterRpc = Pick<
  ZoneWriter,
  "read" | "edit" | "remove" | "rulesetVersions" | "rulesetVersion" | "deleteRulesetVersion"
>;

/** The zone's writer of record. An RPC that throws (the object unreachable) is `unavailable`, never an escape. */
export async function withWriter<T, E = never>(
  env: Env,
  zone: string,
  call: (writer: WriterRpc) => Promise<Result<T, ZoneWriteFailure | E>>,
): Promise<Result<T, ZoneWriteFailure | E>> {
  try {
    const stub: unknown = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
    return await call(stub as WriterRpc);
  } catch (e) {
    return err({ kind: "unavailable", cause: `ZONE_WRITER failed: ${causeOf(e)}` });
  }
}

/** A zone as its writer of record holds it: the raw document and its validated settings. */
export interface CurrentZone {
  readonly document: ZoneDocument;
  readonly zone: Zone;
}

/** The zone's current document from its writer of record; a zone not configured is `not-found` (404). */
export async function readZone(env: Env, zone: string): Promise<Result<CurrentZone, ZoneApiFailure>> {
  const found = await withWriter(env, zone, (w) => w.read(zone));
  if (!found.ok) return found;
  if (found.value === null) return err({ kind: "not-found" });
  const parsed = parseDocument(zone, found.value);
  return parsed.ok ? ok({ document: found.value, zone: parsed.value }) : parsed;
}

/**
 * Where a zone write goes: the bindings, and whether the request is a rehearsal (`?dry_run=true`,
 * docs/configuration.md "Dry runs", kit/dry-run.ts). Taking the context rather than `env` alone means no route can
 * store while rehearsing.
 */
export type ZoneWriteContext = Pick<ApiContext, "env" | "dryRun">;

/**
 * Every zone write: one edit, applied by the zone's writer inside its serialised step to the document as it is
 * then (so it is never prepared from a stale read and never conflicts), the written document then visible on this
 * isolate at once. A dry run applies the same edit with the same function (`applyZoneEdit`) to the document as read,
 * with every check the write makes (the size limit included), and stores nothing: no KV write, no version.
 */
export async function editZone(
  c: ZoneWriteContext,
  zone: string,
  edit: ZoneEdit,
): Promise<Result<ZoneEdited, ZoneApiFailure>> {
  if (c.dryRun) {
    const read = await withWriter(c.env, zone, (w) => w.read(zone));
    if (!read.ok) return read;
    const previous = read.value;
    const target = { zone, previous, version: (previous?.version ?? 0) + 1, now: new Date(), newId: randomId };
    const rehearsed = applyZoneEdit(target, edit);
    return rehearsed.ok ? ok({ document: rehearsed.value.document, ruleset: rehearsed.value.ruleset }) : rehearsed;
  }
  const written = await withWriter(c.env, zone, (w) => w.edit(zone, edit));
  if (written.ok) rememberWritten(zone, written.value.document);
  return written;
}

/**
 * Makes a document the writer just stored visible on this isolate at once (docs/configuration.md: a change is visible on the
 * writing isolate immediately), whichever section changed.
 */
function rememberWritten(zone: string, document: ZoneDocument): void {
  const parsed = parseDocument(zone, document);
  if (parsed.ok) remember(zone, parsed.value);
}
