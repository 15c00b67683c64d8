/**
 * The last good copies (docs/fewer-errors.md "Stale if error"): kept in the Workers Cache API
 * (https://developers.cloudflare.com/workers/runtime-apis/cache/), one named cache, keyed by zone, scheme, path and
 * query, and the request fields the origin's `Vary` names. The runtime's cache ignores `Vary` (beyond
 * `Accept-Encoding`), so the variant is part of the key here: the entry at the plain key is the copy, or, for an answer
 * with `Vary`, a pointer naming the fields whose values (hashed) complete the copy's key. One copy per variant: each
 * good answer replaces the one before.
 *
 * The stored answer carries the origin's own fields and, in `Edge-Errors-Copy-*` fields that never reach a client,
 * when it was kept and its freshness; its `Cache-Control` is replaced by the time the copy may still be used, so
 * the cache drops it then.
 */
import { sha256Hex } from "../../shared/crypto";

/** The cache's name: one for every zone, since the key holds the zone. */
const CACHE_NAME = "stale-copies";

/** The largest body kept, bytes: a copy is for an outage, not a cache of large files (docs/fewer-errors.md). */
export const MAX_COPY_BYTES = 1024 * 1024;

/** The copy's bookkeeping fields (stored only; removed before an answer). */
const KEPT = "Edge-Errors-Copy";
const CACHE_CONTROL = "Edge-Errors-Copy-Cache-Control";
const VARY = "Edge-Errors-Copy-Vary";
/** On a pointer entry: the request fields (lower case, comma-separated) that complete the key. */
const VARIANT_FIELDS = "Edge-Errors-Copy-Variant";

/** Where a request's copy lives: its zone and the URL the client asked for. */
export interface CopyTarget {
  readonly zone: string;
  readonly url: URL;
  readonly request: Request;
}

/** What is known of a kept answer beyond its fields. */
export interface CopyLife {
  /** Seconds fresh (RFC 9111 §4.2.1). */
  readonly fresh: number;
  /** The origin's own `stale-if-error`, seconds. */
  readonly staleIfError: number;
  /** Seconds old when kept (the origin's `Age`). */
  readonly age: number;
}

/** A copy as found. */
export interface Copy extends CopyLife {
  readonly status: number;
  /** The origin's fields as it sent them (bookkeeping removed, `Cache-Control` and `Vary` restored). */
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
}

/** The copy's plain key: zone, then scheme, path and query as one escaped segment (so no two URLs collide). */
function baseKey(target: CopyTarget): string {
  const { url } = target;
  return `https://${target.zone}/cdn-cgi/stale-copy/${encodeURIComponent(url.protocol + url.pathname + url.search)}`;
}

/** The `Vary` field names, lower case, sorted, without duplicates. */
function varyFields(vary: string | null): string[] {
  if (vary === null) return [];
  const names = new Set<string>();
  for (const part of vary.split(",")) {
    const name = part.trim().toLowerCase();
    if (name !== "") names.add(name);
  }
  return [...names].sort();
}

/** A variant's key: the plain key and a digest of the request's values of the varied fields (absent ≠ empty). */
async function variantKey(base: string, fields: readonly string[], request: Request): Promise<string> {
  const values = fields.map((name) => {
    const value = request.headers.get(name);
    return value === null ? "\u0000" : JSON.stringify(value);
  });
  return `${base}/v/${await sha256Hex(values.join("\n"), 16)}`;
}

/**
 * Keeps `body` (null: none, a 204) as the copy of `target`, usable for `ttl` more seconds. Bytes stored (fields and
 * body) are answered so a caller can count them; 0 when nothing was kept.
 */
export async function putCopy(
  target: CopyTarget,
  answer: { readonly status: number; readonly headers: Headers; readonly body: Uint8Array | null },
  life: CopyLife,
  ttl: number,
): Promise<number> {
  const headers = new Headers(answer.headers);
  for (const name of ["Cache-Control", "Vary", "Age", "Expires", "Set-Cookie"]) headers.delete(name);
  const cc = answer.headers.get("Cache-Control");
  if (cc !== null) headers.set(CACHE_CONTROL, cc);
  const vary = answer.headers.get("Vary");
  if (vary !== null) headers.set(VARY, vary);
  headers.set(KEPT, `${Date.now()} ${life.fresh} ${life.staleIfError} ${life.age}`);
  headers.set("Cache-Control", `max-age=${ttl}`);
  const cache = await caches.open(CACHE_NAME);
  const base = baseKey(target);
  const fields = varyFields(vary);
  let bytes = (answer.body?.byteLength ?? 0) + fieldBytes(headers);
  let key = base;
  if (fields.length > 0) {
    const pointer = new Headers({ [VARIANT_FIELDS]: fields.join(","), "Cache-Control": `max-age=${ttl}` });
    await cache.put(base, new Response(null, { headers: pointer }));
    bytes += fieldBytes(pointer);
    key = await variantKey(base, fields, target.request);
  }
  await cache.put(key, new Response(answer.body, { status: answer.status, headers }));
  return bytes;
}

function fieldBytes(headers: Headers): number {
  let n = 0;
  for (const [name, value] of headers) n += name.length + value.length + 4;
  return n;
}

/** The copy for this request, if one is kept (and was not dropped by the cache). */
export async function findCopy(target: CopyTarget, now: number): Promise<Copy | null> {
  const cache = await caches.open(CACHE_NAME);
  const base = baseKey(target);
  let found = await cache.match(base);
  if (found === undefined) return null;
  const variant = found.headers.get(VARIANT_FIELDS);
  if (variant !== null) {
    found = await cache.match(await variantKey(base, variant.split(","), target.request));
    if (found === undefined) return null;
  }
  const kept = (found.headers.get(KEPT) ?? "").split(" ").map(Number);
  const [at = NaN, fresh = 0, staleIfError = 0, age = 0] = kept;
  if (kept.length !== 4 || !kept.every(Number.isFinite)) {
    await found.body?.cancel();
    return null;
  }
  const headers = new Headers(found.headers);
  headers.delete("Cache-Control");
  // The runtime's cache adds its own status field to what it answers: never part of the origin's answer.
  headers.delete("CF-Cache-Status");
  for (const [field, original] of [
    [CACHE_CONTROL, "Cache-Control"],
    [VARY, "Vary"],
  ] as const) {
    const value = headers.get(field);
    if (value !== null) headers.set(original, value);
    headers.delete(field);
  }
  headers.delete(KEPT);
  const resident = Math.max(0, Math.floor((now - at) / 1000));
  return { status: found.status, headers, body: found.body, fresh, staleIfError, age: age + resident };
}
