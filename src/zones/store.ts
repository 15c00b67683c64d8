/**
 * Zone documents in KV `CONFIG` (contract §6; layout in docs/configuration.md):
 *
 *   zone:{zone}            one versioned JSON document per zone:
 *                          {"schema":1,"version":N,"zone":"…","modified_on":"…","settings":{…}, …other sections}
 *   zone:{zone}:{part}     parts stored under keys of their own (error pages), deleted with the zone
 *
 * Sections this module does not know (rules, access rules, written by other features) are kept as they are
 * when the settings are replaced. A KV exception is a value here (`unavailable`), so the edge can answer a
 * structured 500 rather than letting it escape as 1101 (contract §3).
 */
import { err, ok, type Result } from "../result";
import { parseZoneSettings, type Zone, type ZoneSettings } from "./schema";
import type { OriginTarget } from "./origin-url";

export const ZONE_DOC_SCHEMA = 1;

export type StoreFailure =
  | { readonly kind: "unavailable"; readonly cause: string }
  | { readonly kind: "corrupt"; readonly cause: string };

/** The KV key of a zone's document. */
export const zoneKey = (zone: string): string => `zone:${zone}`;
/** The prefix of a zone's parts (the colon keeps `zone:a.example` from matching `zone:a.example.org`). */
export const zonePartsPrefix = (zone: string): string => `zone:${zone}:`;

type Document = Record<string, unknown>;

/** Reads a zone; `null` when none is configured. */
export async function readZone(kv: KVNamespace, zone: string): Promise<Result<Zone | null, StoreFailure>> {
  const raw = await readRaw(kv, zone);
  if (!raw.ok) return raw;
  if (raw.value === null) return ok(null);
  return parseDocument(zone, raw.value);
}

/** Creates or replaces a zone's settings, keeping its other sections; bumps the version. */
export async function writeZone(
  kv: KVNamespace,
  zone: string,
  settings: ZoneSettings,
  target: OriginTarget,
  now = new Date(),
): Promise<Result<Zone, StoreFailure>> {
  const raw = await readRaw(kv, zone);
  if (!raw.ok) return raw;
  // A corrupt previous document is replaced rather than blocking the repair.
  const previous = raw.value ?? {};
  const version = Number.isSafeInteger(previous.version) ? (previous.version as number) + 1 : 1;
  const modifiedOn = now.toISOString();
  const document: Document = {
    ...previous,
    schema: ZONE_DOC_SCHEMA,
    version,
    zone,
    modified_on: modifiedOn,
    settings,
  };
  try {
    await kv.put(zoneKey(zone), JSON.stringify(document));
  } catch (e) {
    return err(unavailable("put", e));
  }
  return ok({ zone, settings, target, version, modifiedOn });
}

/** Deletes a zone's document and every part stored under its prefix. `false` when there was none. */
export async function deleteZone(kv: KVNamespace, zone: string): Promise<Result<boolean, StoreFailure>> {
  try {
    const existed = (await kv.get(zoneKey(zone))) !== null;
    // Document first: once it is gone the zone stops being served, whatever happens to its parts.
    await kv.delete(zoneKey(zone));
    let cursor: string | undefined;
    do {
      const page = await kv.list({ prefix: zonePartsPrefix(zone), cursor });
      await Promise.all(page.keys.map((key) => kv.delete(key.name)));
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor !== undefined);
    return ok(existed);
  } catch (e) {
    return err(unavailable("delete", e));
  }
}

async function readRaw(kv: KVNamespace, zone: string): Promise<Result<Document | null, StoreFailure>> {
  let text: string | null;
  try {
    text = await kv.get(zoneKey(zone));
  } catch (e) {
    return err(unavailable("get", e));
  }
  if (text === null) return ok(null);
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return ok(value as Document);
  } catch {
    // fall through
  }
  return err({ kind: "corrupt", cause: `CONFIG ${zoneKey(zone)} is not a JSON object` });
}

function parseDocument(zone: string, doc: Document): Result<Zone, StoreFailure> {
  const corrupt = (why: string): Result<Zone, StoreFailure> =>
    err({ kind: "corrupt", cause: `CONFIG ${zoneKey(zone)}: ${why}` });
  if (doc.schema !== ZONE_DOC_SCHEMA) return corrupt(`unsupported schema ${String(doc.schema)}`);
  if (!Number.isSafeInteger(doc.version)) return corrupt("version is not an integer");
  const parsed = parseZoneSettings(doc.settings);
  if (!parsed.ok) return corrupt(parsed.error.map((e) => `${e.field} ${e.message}`).join("; "));
  return ok({
    zone,
    settings: parsed.value.settings,
    target: parsed.value.target,
    version: doc.version as number,
    modifiedOn: typeof doc.modified_on === "string" ? doc.modified_on : "",
  });
}

function unavailable(op: string, e: unknown): StoreFailure {
  return { kind: "unavailable", cause: `CONFIG.${op} failed: ${e instanceof Error ? e.message : String(e)}` };
}
