/**
 * Reading management API bodies within the 1 MiB limit (contract §8), enforced while streaming so an
 * oversized or lying `Content-Length` never makes the Worker buffer more than the limit.
 */
import { messageOf, err, ok, type Result } from "../../shared/result";
import { API_FAILURES, type ApiFailure } from "./envelope";

/** Management API bodies are at most 1 MiB (contract §8). */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/** Reads the body as UTF-8 text, refusing (413) as soon as it passes `limit` bytes. */
export async function readBodyText(request: Request, limit = MAX_API_BODY_BYTES): Promise<Result<string, ApiFailure>> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) return err(API_FAILURES.bodyTooLarge(limit));
  if (!request.body) return ok("");
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return err(API_FAILURES.bodyTooLarge(limit));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return err(API_FAILURES.invalidJson("body is not valid UTF-8"));
  }
}

/** Reads and parses a JSON body (≤ `limit` bytes). The caller validates the shape. */
export async function readJsonBody(request: Request, limit = MAX_API_BODY_BYTES): Promise<Result<unknown, ApiFailure>> {
  const text = await readBodyText(request, limit);
  if (!text.ok) return text;
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch (e) {
    return err(API_FAILURES.invalidJson(messageOf(e)));
  }
}
