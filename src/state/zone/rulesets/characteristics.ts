/**
 * Counting characteristics of a rate-limiting rule (docs/producers.md; the published API's `characteristics`): the
 * request properties whose values, together, name one counter. Requests with the same values share a counter;
 * different values are counted apart ("two clients counted apart").
 *
 * Supported: `ip.src` (from `CF-Connecting-IP` only, validated), `ip.src.country`, `ip.src.asnum`, `http.host`,
 * `http.request.uri.path`, `http.request.headers["name"]`, `http.request.uri.args["name"]`,
 * `http.request.cookies["name"]`, and `cf.colo.id` (mandatory on the published platform; one location here, so it
 * adds nothing to the key). A value that is missing (no valid `CF-Connecting-IP`, no such header) is its own
 * value, `null`: every request lacking it shares one counter, so omitting a header never escapes the limit.
 */
import { formatAddress } from "../access-rules/address";
import { fromByteString, requestFields, type EvaluationContext, type Value } from "../../../rules";
import type { ValueMap } from "../../../rules/values";
import { err, ok, type Result } from "../../../shared/result";

export type Characteristic =
  | { readonly kind: "colo" }
  | { readonly kind: "field"; readonly name: string; readonly index: number }
  | { readonly kind: "map-key"; readonly name: string; readonly index: number; readonly key: string }
  | { readonly kind: "cookie"; readonly cookie: string };

const SIMPLE_FIELDS = ["ip.src", "ip.src.country", "ip.src.asnum", "http.host", "http.request.uri.path"] as const;
const KEYED = /^(http\.request\.headers|http\.request\.uri\.args|http\.request\.cookies)\["([^"\\]{1,256})"\]$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

export function parseCharacteristic(text: string): Result<Characteristic, string> {
  if (text === "cf.colo.id") return ok({ kind: "colo" });
  if ((SIMPLE_FIELDS as readonly string[]).includes(text))
    return ok({ kind: "field", name: text, index: fieldIndex(text) });
  const keyed = KEYED.exec(text);
  if (keyed) {
    const [, field = "", key = ""] = keyed;
    if (field === "http.request.cookies") return ok({ kind: "cookie", cookie: key });
    if (field === "http.request.headers" && !HEADER_NAME.test(key)) {
      return err(`${text}: header names are lower-case tokens (as in expressions)`);
    }
    return ok({ kind: "map-key", name: field, index: fieldIndex(field), key });
  }
  return err(
    `${text} is not a supported characteristic (one of cf.colo.id, ${SIMPLE_FIELDS.join(", ")}, ` +
      `http.request.headers["name"], http.request.uri.args["name"], http.request.cookies["name"])`,
  );
}

function fieldIndex(name: string): number {
  const decl = requestFields.scheme.field(name);
  if (!decl) throw new Error(`request field ${name} missing from the scheme`);
  return decl.index;
}

/**
 * The values of the characteristics on one request, as JSON text (unambiguous: `["a,b"]` ≠ `["a","b"]`). Read
 * through the request's rule context, so `ip.src` here is exactly `ip.src` in the rule's expression.
 */
export function countingKey(
  characteristics: readonly Characteristic[],
  ctx: EvaluationContext,
  request: Request,
): string {
  const values: (string | number | null)[] = [];
  for (const c of characteristics) {
    switch (c.kind) {
      case "colo":
        break;
      case "field":
        values.push(scalar(c.name, ctx.get(c.index)));
        break;
      case "map-key": {
        const map = ctx.get(c.index);
        const list = typeof map === "object" && !Array.isArray(map) ? (map as ValueMap).get(c.key) : undefined;
        values.push(
          Array.isArray(list) ? list.map((v) => (typeof v === "string" ? fromByteString(v) : "")).join("\n") : null,
        );
        break;
      }
      case "cookie":
        values.push(cookieValue(request.headers.get("cookie"), c.cookie));
        break;
    }
  }
  return JSON.stringify(values);
}

function scalar(name: string, value: Value | undefined): string | number | null {
  if (value === undefined) return null;
  // IPv4 is a number and IPv6 a bigint in the engine; the key holds the canonical text of either.
  if (name === "ip.src" && (typeof value === "number" || typeof value === "bigint")) return formatAddress(value);
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string") return fromByteString(value);
  return null;
}

/** A cookie's value (RFC 6265 §5.4 `name=value; …`); the first one of that name wins, as browsers order them. */
function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
