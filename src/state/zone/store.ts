/**
 * Zone documents in KV `CONFIG`, the read path of traffic (docs/configuration.md; layout in docs/configuration.md):
 *
 *   zone:{zone}            one versioned JSON document per zone:
 *                          {"schema":1,"version":N,"zone":"…","modified_on":"…","settings":{…}, …other sections}
 *   zone:{zone}:{part}     parts stored under keys of their own (error pages), deleted with the zone
 *
 * Only the zone's writer of record (`writer.ts`, a Durable Object per zone) writes them; this module reads and
 * parses. A KV exception is a value here (`unavailable`), so the edge answers a structured 500 rather than
 * letting it escape as 1101 (docs/origin.md).
 */
import { causeOf, err, ok, type Result } from "../../shared/result";
import { ACCOUNT_ID, parseZoneSettings, ZONE_DOC_SCHEMA, type Zone, type ZoneDocument } from "./schema";

export type StoreFailure =
  { readonly kind: "unavailable"; readonly cause: string } | { readonly kind: "corrupt"; readonly cause: string };

/** The KV key of a zone's document. */
export const zoneKey = (zone: string): string => `zone:${zone}`;
/** The prefix of a zone's parts (the colon keeps `zone:a.example` from matching `zone:a.example.org`). */
export const zonePartsPrefix = (zone: string): string => `zone:${zone}:`;

/**
 * The KV metadata of a zone's document key: the zone's account, so that a listing of the `zone:` prefix (which
 * returns each key's metadata) filters by account without reading a document (docs/configuration.md "Listing
 * zones"). Written by the writer with every document; a zone without an account has none.
 */
export interface ZoneKeyMetadata {
  readonly account: string;
}

/** The metadata to store with a document (`undefined`: none), from its settings as written. */
export function zoneKeyMetadata(document: ZoneDocument): ZoneKeyMetadata | undefined {
  const settings = document.settings;
  if (typeof settings !== "object" || settings === null) return undefined;
  const account: unknown = (settings as { account?: { id?: unknown } }).account?.id;
  return typeof account === "string" && ACCOUNT_ID.test(account) ? { account } : undefined;
}

/** The account named by a listed key's metadata, `null` for none (or metadata this service did not write). */
export function accountOfMetadata(metadata: unknown): string | null {
  if (typeof metadata !== "object" || metadata === null) return null;
  const account: unknown = (metadata as { account?: unknown }).account;
  return typeof account === "string" && ACCOUNT_ID.test(account) ? account : null;
}

/** Reads a zone from KV; `null` when none is configured. */
export async function readZone(kv: KVNamespace, zone: string): Promise<Result<Zone | null, StoreFailure>> {
  let text: string | null;
  try {
    text = await kv.get(zoneKey(zone));
  } catch (e) {
    return err({ kind: "unavailable", cause: `CONFIG.get failed: ${causeOf(e)}` });
  }
  if (text === null) return ok(null);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return err({ kind: "corrupt", cause: `CONFIG ${zoneKey(zone)} is not a JSON object` });
  }
  return parseDocument(zone, value as ZoneDocument);
}

/** A stored document as the service uses it; a document that fails validation is never trusted. */
export function parseDocument(zone: string, doc: ZoneDocument): Result<Zone, StoreFailure> {
  const corrupt = (why: string): Result<Zone, StoreFailure> =>
    err({ kind: "corrupt", cause: `CONFIG ${zoneKey(zone)}: ${why}` });
  if (doc.schema !== ZONE_DOC_SCHEMA) return corrupt(`unsupported schema ${String(doc.schema)}`);
  if (!Number.isSafeInteger(doc.version)) return corrupt("version is not an integer");
  const parsed = parseZoneSettings(doc.settings);
  if (!parsed.ok) return corrupt(parsed.error.listed.map((e) => `${e.path} ${e.message}`).join("; "));
  return ok({
    zone,
    settings: parsed.value.settings,
    target: parsed.value.target,
    version: doc.version,
    modifiedOn: typeof doc.modified_on === "string" ? doc.modified_on : "",
    incarnation:
      Number.isSafeInteger(doc.incarnation) && (doc.incarnation as number) > 0 ? (doc.incarnation as number) : 0,
    document: doc,
  });
}
