/**
 * One spelling of a JSON value (docs/config-as-code.md "Determinism"): every object's keys in code-unit order at
 * every depth, arrays in their own order. Two bundles of the same configuration are then the same bytes, whatever
 * order the stores or the schema built their objects in, so the ETag (the SHA-256 of those bytes) changes only
 * when the configuration does. Pure.
 */
import { sha256Hex } from "../../shared/crypto";

/** A JSON value as a bundle holds it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** `value` with every object's keys sorted (`undefined` members dropped, as `JSON.stringify` drops them). */
export function canonical(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map((item: unknown) => canonical(item));
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // `fromEntries` defines own properties: a key such as `__proto__` stays a key.
    return Object.fromEntries(entries.map(([key, member]) => [key, canonical(member)]));
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return null;
}

/** The canonical text of `value`: what the ETag is computed over. */
export function canonicalText(value: unknown): string {
  return JSON.stringify(canonical(value));
}

/** A strong entity tag (RFC 9110 §8.8.3) of a canonical value: its SHA-256, quoted. */
export async function bundleEtag(value: unknown): Promise<string> {
  return `"${await sha256Hex(canonicalText(value))}"`;
}
