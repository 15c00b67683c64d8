/**
 * Error page and custom error asset HTML per isolate (docs/configuration.md: pages and assets live under keys of their own).
 * Read from KV on the first error that needs one after the zone's document changed, then served from memory; keyed
 * by zone, document version and part, so a new page or asset is read once per isolate and a stale one is never
 * served past the zone cache's TTL (AGENTS.md: no KV read on the hot path when nothing changed). One cache for both,
 * bounded by count and bytes (docs/configuration.md).
 */
import { logEvent } from "../../shared/log";
import { assetKey } from "../../state/zone/custom-pages/assets";
import { pageKey } from "../../state/zone/custom-pages/stored";
import type { PageId } from "../../state/zone/custom-pages/validate";
import { BoundedCache } from "../../shared/bounded-cache";

/**
 * Whose parts: a zone at one document version (a `CompiledCustomErrors` is one). Only these two fields key the
 * cache, so this module asks for no more of the compiled configuration, which itself holds cached parts.
 */
export interface ZoneVersion {
  readonly zone: string;
  readonly version: number;
}

/** A part as served: its text, and whether it holds a value token (scanned once here, not on every error). */
export type CachedPart =
  | { readonly kind: "text"; readonly text: string; readonly tokens: boolean }
  /** KV has no value for it (yet: KV propagates within ≈60 s); asked again after `until`. */
  | { readonly kind: "missing"; readonly until: number };

const MAX_PARTS = 256;
/** UTF-16 code units, the unit `string.length` counts (a JavaScript string holds up to 2 bytes per unit). */
const MAX_BYTES = 32 * 1024 * 1024;
/** How long a part found missing is not asked for again (the zone cache's TTL, src/state/zone/cache.ts). */
const MISSING_MS = 10_000;
const parts = new BoundedCache<string, CachedPart>({
  capacity: MAX_PARTS,
  maxBytes: MAX_BYTES,
  sizeOf: (part) => (part.kind === "text" ? part.text.length : 0) + 64,
});

const keyOf = (compiled: ZoneVersion, part: string): string => `${compiled.zone}\u0000${compiled.version}\u0000${part}`;

/** The page's HTML, or `null` when it cannot be read (the pipeline then answers the structured default). */
export async function pageHtml(kv: KVNamespace, compiled: ZoneVersion, id: PageId): Promise<string | null> {
  const hit = cached(compiled, id);
  const part = hit ?? (await load(kv, compiled, id, pageKey(compiled.zone, id), { page: id }));
  return part?.kind === "text" ? part.text : null;
}

/** A custom error asset as cached on this isolate for this version: synchronous, `undefined` when not loaded. */
export function cachedAsset(compiled: ZoneVersion, name: string): CachedPart | undefined {
  return cached(compiled, `asset:${name}`);
}

/** Loads a custom error asset from KV into the cache; `null` when KV failed (logged, not cached: asked again). */
export function loadAsset(kv: KVNamespace, compiled: ZoneVersion, name: string): Promise<CachedPart | null> {
  return load(kv, compiled, `asset:${name}`, assetKey(compiled.zone, name), { asset: name });
}

function cached(compiled: ZoneVersion, part: string): CachedPart | undefined {
  const hit = parts.get(keyOf(compiled, part));
  if (hit?.kind === "missing" && hit.until <= Date.now()) return undefined;
  return hit;
}

async function load(
  kv: KVNamespace,
  compiled: ZoneVersion,
  part: string,
  key: string,
  which: { readonly page: PageId } | { readonly asset: string },
): Promise<CachedPart | null> {
  let text: string | null;
  try {
    text = await kv.get(key);
  } catch (e) {
    if ("page" in which)
      logEvent("custom_page_unavailable", { zone: compiled.zone, page: which.page, cause: String(e) });
    else logEvent("custom_asset_unavailable", { zone: compiled.zone, asset: which.asset, cause: String(e) });
    return null;
  }
  const value: CachedPart =
    text === null
      ? { kind: "missing", until: Date.now() + MISSING_MS }
      : { kind: "text", text, tokens: /::(?:RAY_ID|CLIENT_IP|GEO)::/.test(text) };
  if (value.kind === "missing" && "asset" in which)
    logEvent("custom_asset_unavailable", { zone: compiled.zone, asset: which.asset, cause: `CONFIG has no ${key}` });
  parts.set(keyOf(compiled, part), value);
  return value;
}
