/**
 * Keyset cursors (docs/tags-api.md; docs/tags-api.md): opaque, never expiring, bound to their account and query,
 * and authenticated with an HMAC whose key lives only in the account's Durable Object.
 *
 * Text form: `base64url(JSON {v:1, k:[…last sort key…]}) "." base64url(HMAC-SHA256(key, scope)[0..16])`,
 * where scope = version, account, query key and sort key. The sort key is readable on purpose (it is what the
 * client already saw); the MAC is what stops a client from seeking with a forged or foreign cursor.
 *
 * Decoding is pure and runs in the Worker (a malformed cursor never reaches the object); `signCursor` and
 * `verifyCursor` run in the object, which holds the key.
 */
import { err, ok, type Result } from "../../shared/result";
import { base64UrlToBytes, bytesToBase64Url } from "./base64url";

const VERSION = 1;
/**
 * Longest cursor text accepted. The longest legal sort key is the summary's `[key, value]` (summary.ts): a
 * 256-code-point key (letters: ≤ 1 KiB of JSON) and a 1,024-code-point value (≤ 6 KiB of JSON when every
 * character is an escaped control character), ~9.6 KB of cursor text; a resource's (type, parent, id) is ~4.2 KB.
 */
export const MAX_CURSOR_LENGTH = 12_288;
const MAC_BYTES = 16;

/** A decoded, not yet verified cursor. */
export interface DecodedCursor {
  readonly sortKey: readonly string[];
  readonly mac: Uint8Array;
}

/** Which listing a cursor belongs to, with everything that shapes its results (docs/tags-api.md). */
export type CursorScope = { readonly account: string; readonly query: string };

/**
 * Parses the cursor text; any malformation is `"invalid"` (the caller answers 1017). `arity` is the length
 * of the listing's sort key, or the lengths it accepts (the summary's `[key]` and `[key, value]`).
 */
export function decodeCursor(text: string, arity: number | readonly number[]): Result<DecodedCursor, "invalid"> {
  const arities: readonly number[] = typeof arity === "number" ? [arity] : arity;
  if (text.length > MAX_CURSOR_LENGTH) return err("invalid");
  const [body, macText, ...rest] = text.split(".");
  if (body === undefined || macText === undefined || rest.length > 0) return err("invalid");
  const bytes = base64UrlToBytes(body);
  const mac = base64UrlToBytes(macText);
  if (!bytes || !mac || mac.length !== MAC_BYTES) return err("invalid");
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return err("invalid");
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return err("invalid");
  const { v, k } = data as { v?: unknown; k?: unknown };
  if (v !== VERSION || !Array.isArray(k) || !arities.includes(k.length) || !k.every((p) => typeof p === "string"))
    return err("invalid");
  return ok({ sortKey: k, mac });
}

function scopeBytes(scope: CursorScope, sortKey: readonly string[]): Uint8Array {
  // JSON of an array is an unambiguous encoding of the tuple: no separator can be forged inside a field.
  return new TextEncoder().encode(JSON.stringify([VERSION, scope.account, scope.query, sortKey]));
}

async function macOf(key: CryptoKey, scope: CursorScope, sortKey: readonly string[]): Promise<Uint8Array> {
  const full = await crypto.subtle.sign("HMAC", key, scopeBytes(scope, sortKey));
  return new Uint8Array(full, 0, MAC_BYTES);
}

export async function signCursor(key: CryptoKey, scope: CursorScope, sortKey: readonly string[]): Promise<string> {
  const body = bytesToBase64Url(new TextEncoder().encode(JSON.stringify({ v: VERSION, k: sortKey })));
  return `${body}.${bytesToBase64Url(await macOf(key, scope, sortKey))}`;
}

/** Constant-time check of the cursor's MAC against this account and query. */
export async function verifyCursor(key: CryptoKey, scope: CursorScope, cursor: DecodedCursor): Promise<boolean> {
  const expected = await macOf(key, scope, cursor.sortKey);
  return crypto.subtle.timingSafeEqual(expected, cursor.mac);
}

/** Imports the object's raw HMAC key (RFC 2104 with SHA-256). */
export function importCursorKey(raw: ArrayBuffer): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}
