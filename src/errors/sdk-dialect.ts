/**
 * The SDK dialect of a JSON error (docs/errors.md "SDK dialect"): one more extension member, `error: {message, type,
 * code}`, for the clients that read only that. openai-node builds its exception's message from the body's `error`
 * member alone (`APIError.generate` and `makeMessage` in https://github.com/openai/openai-node/blob/master/src/core/error.ts)
 * and shows "521 status code (no body)" for any body without it; most OpenAI-compatible clients read the same shape
 * (https://platform.openai.com/docs/guides/error-codes). Sent to a Stainless-generated SDK (it sends `x-stainless-*`
 * headers) and on an OpenAI-style API path (client-kind.ts); every other body is unchanged, byte for byte.
 *
 * The member comes last, after the 17 fields and the other extension members, so those keep their order and
 * values: it is appended to the rendered body, not rendered into the template (no cost for any other client).
 */
import type { ErrorFields } from "./fields";
import { fromStainlessSdk, isOpenAiStylePath } from "./client-kind";
import { jsonString } from "./render-json";

/** Whether a JSON answer to this request carries the `error` member. */
export function openAiDialect(request: Request, url: URL | undefined): boolean {
  if (fromStainlessSdk(request.headers)) return true;
  const path = url !== undefined ? url.pathname : pathOf(request.url);
  return isOpenAiStylePath(path);
}

/** The path of a serialised absolute URL, without parsing it again. */
function pathOf(href: string): string {
  const authority = href.indexOf("//");
  const start = authority === -1 ? -1 : href.indexOf("/", authority + 2);
  if (start === -1) return "/";
  const end = href.search(/[?#]/);
  return end === -1 || end < start ? href.slice(start) : href.slice(start, end);
}

/**
 * The member's value: `message` the title and the detail (what an SDK shows), `type` the error name, `code` the error
 * code as a string: OpenAI's error object types `code` as a string (or null), and the typed clients (openai-python's
 * `APIError.code: Optional[str]`, async-openai's `Option<String>`) would fail to read a number.
 */
export function openAiError(fields: ErrorFields): { message: string; type: string; code: string } {
  return { message: `${fields.title}. ${fields.detail}`, type: fields.error_name, code: String(fields.error_code) };
}

const encoder = new TextEncoder();

/** The JSON body `body` (an object, ending in `}`) with the `error` member appended. */
export function withOpenAiError(body: Uint8Array, fields: ErrorFields): Uint8Array {
  const { message, type, code } = openAiError(fields);
  const member = encoder.encode(
    `,"error":{"message":${jsonString(message)},"type":${jsonString(type)},"code":${jsonString(code)}}}`,
  );
  // The body ends with its object's `}` (render-json.ts: JSON.stringify of one object, no trailing space).
  const out = new Uint8Array(body.byteLength - 1 + member.byteLength);
  out.set(body.subarray(0, body.byteLength - 1), 0);
  out.set(member, body.byteLength - 1);
  return out;
}
