/**
 * Reading management API bodies within the 1 MiB limit (docs/configuration.md), enforced while streaming so an
 * oversized or lying `Content-Length` never makes the Worker buffer more than the limit; then a JSON body's nesting
 * depth, checked by a linear scan of the text before `JSON.parse` builds anything (docs/configuration.md
 * "Zones"): a 3,000-deep body is a 400 here, not a stack overflow in a validator or in the structured
 * clone that carries a body to the zone's writer.
 */
import { readWithin } from "../../shared/read-within";
import { messageOf, err, ok, type Result } from "../../shared/result";
import { API_CODES } from "./codes";
import { API_FAILURES, failureOf, type ApiFailure } from "./envelope";

/** Management API bodies are at most 1 MiB (docs/configuration.md). */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/**
 * The deepest nesting of objects and arrays a JSON body may have (the body itself is depth 1). The deepest body any
 * route takes is 8 (a draft preview's overlay link: body → draft → rules → rule → action_parameters → overlay →
 * links → link), so 32 refuses nothing legitimate and keeps every later recursion over a body shallow.
 */
export const MAX_JSON_DEPTH = 32;

/** The envelope code of a body nested deeper than `MAX_JSON_DEPTH` (beside 10002, a body that is not JSON). */
export const JSON_TOO_DEEP_CODE = API_CODES["json-too-deep"].code;

/**
 * Reads the body's bytes, refusing (413) as soon as it passes `limit` bytes; `beforeRead` as `readWithin`'s
 * (src/shared/read-within.ts).
 */
export async function readBodyBytes(
  request: Request,
  limit = MAX_API_BODY_BYTES,
  beforeRead?: (size: number) => Promise<void> | undefined,
): Promise<Result<Uint8Array, ApiFailure>> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) return err(API_FAILURES.bodyTooLarge(limit));
  if (!request.body) return ok(new Uint8Array(0));
  const bytes = await readWithin(request.body as ReadableStream<Uint8Array>, limit, beforeRead);
  return bytes === null ? err(API_FAILURES.bodyTooLarge(limit)) : ok(bytes);
}

/** A body's bytes as UTF-8 text (a few milliseconds for a body near 1 MiB: a turn's piece for a caller that takes turns). */
export function bodyText(bytes: Uint8Array): Result<string, ApiFailure> {
  try {
    return ok(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return err(API_FAILURES.invalidJson("body is not valid UTF-8"));
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether `text` opens more than `limit` objects and arrays inside one another, brackets inside strings not
 * counted. One pass, no allocation, strings skipped with `indexOf` (most of a large body is string content); it
 * does not validate (JSON.parse does, after): on text that is not JSON its answer only decides which of the two
 * 400s comes first.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it (each run is counted once). */
function escaped(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === BACKSLASH) run++;
  return run % 2 === 1;
}

/**
 * Reads and parses a JSON body (≤ `limit` bytes, nested at most `MAX_JSON_DEPTH` deep: 400, code 10004, before
 * parsing). The caller validates the shape.
 */
export async function readJsonBody(request: Request, limit = MAX_API_BODY_BYTES): Promise<Result<unknown, ApiFailure>> {
  const bytes = await readBodyBytes(request, limit);
  const text = bytes.ok ? bodyText(bytes.value) : bytes;
  if (!text.ok) return text;
  return parseJsonText(text.value);
}

/**
 * `readJsonBody`'s second half, on text already read: the depth check, then `JSON.parse`. Apart so a caller that
 * parses a large body in a turn with traffic (src/api/explain/turns.ts) reads it first and parses it there.
 */
export function parseJsonText(text: string): Result<unknown, ApiFailure> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    return err(
      failureOf(
        "json-too-deep",
        `Request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no endpoint takes a body ` +
          "that deep (docs/configuration.md)",
      ),
    );
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err(API_FAILURES.invalidJson(messageOf(e)));
  }
}
