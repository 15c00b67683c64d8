/**
 * A body read whole only while it stays within a byte limit: past the limit the rest is cancelled, so a body that
 * is too large (or a lying `Content-Length`) never costs more than the limit in isolate memory.
 */

/**
 * The body's bytes, or null (the rest cancelled) as soon as it passes `limit` bytes. `beforeRead`, when given, runs
 * before each read with the bytes read so far and may return a promise to wait for first (a management call's body
 * lets traffic go first: src/api/explain/turns.ts `pacedBodyBytes`).
 */
export async function readWithin(
  body: ReadableStream<Uint8Array>,
  limit: number,
  beforeRead?: (size: number) => Promise<void> | undefined,
): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const pause = beforeRead?.(size);
    if (pause !== undefined) await pause;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
