/**
 * The first characters of a body, reading no more of it than they need: the rest is cancelled, so a 30 MB body
 * costs its first chunks, not 30 MB of isolate memory (twice, as bytes and as text) and the time to receive it.
 */

/** What `textPrefix` read: the text (at most `maxChars`), and whether the body had more. */
export interface TextPrefix {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * Reads `body` as UTF-8 until `maxChars` characters are decoded or it ends, then cancels it. At most `maxChars` × 4
 * bytes (UTF-8's widest character) plus one chunk are read. A read error ends the text where it stopped.
 */
export async function textPrefix(body: ReadableStream<Uint8Array> | null, maxChars: number): Promise<TextPrefix> {
  if (body === null) return { text: "", truncated: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        text += decoder.decode();
        break;
      }
      text += decoder.decode(value, { stream: true });
      if (text.length >= maxChars) {
        await reader.cancel("read what is kept").catch(() => undefined);
        return { text: text.slice(0, maxChars), truncated: true };
      }
    }
  } catch {
    await reader.cancel().catch(() => undefined);
    return { text: text.slice(0, maxChars), truncated: true };
  }
  return { text: text.slice(0, maxChars), truncated: text.length > maxChars };
}
