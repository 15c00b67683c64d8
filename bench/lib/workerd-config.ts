/**
 * V8 flags for a workerd started by Miniflare (the two instruction levels). workerd's config has a
 * `v8Flags :List(Text)` field (`Config` field 2, pointer slot 2, in workerd.capnp) that Miniflare never sets, and
 * Miniflare writes its config as one binary Cap'n Proto message to workerd's stdin (`serve --binary … -`). This
 * module adds the flags to that message, so a `MINIFLARE_WORKERD_PATH` wrapper (bench/lib/instructions.ts) can
 * hand workerd the patched message instead. Only the encoding is touched: the message's segments stay where they
 * are and the list is appended at the end of the first segment (the Cap'n Proto encoding spec,
 * https://capnproto.org/encoding.html: "Serialization over a stream", "Structs", "Lists", "Blobs").
 */

/** `Config.v8Flags` is the third pointer of the root struct (workerd.capnp: `v8Flags @2 :List(Text)`). */
const V8_FLAGS_POINTER = 2;
const WORD = 8;

/** A V8 flag as the bench passes it: `--name` or `--name=value`, nothing a shell or V8 could read otherwise. */
export function isV8Flag(flag: string): boolean {
  return /^--[a-z0-9][a-z0-9_-]*(=[a-z0-9_.:-]+)?$/i.test(flag);
}

interface Framing {
  /** Segment sizes in words. */
  readonly sizes: number[];
  /** Byte offset of segment 0's first word. */
  readonly start: number;
}

function framing(message: Uint8Array): Framing {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  if (message.byteLength < 8) throw new Error("not a Cap'n Proto message: shorter than its segment table");
  const count = view.getUint32(0, true) + 1;
  const tableBytes = 4 + 4 * count;
  const start = tableBytes + (tableBytes % 8 === 0 ? 0 : 4);
  if (start > message.byteLength) throw new Error("not a Cap'n Proto message: segment table past the end");
  const sizes: number[] = [];
  for (let i = 0; i < count; i++) sizes.push(view.getUint32(4 + 4 * i, true));
  const total = sizes.reduce((sum, size) => sum + size * WORD, start);
  if (total !== message.byteLength)
    throw new Error(`not a Cap'n Proto message: ${total} bytes framed, ${message.byteLength} given`);
  return { sizes, start };
}

/** Bits 2..31 of a pointer's low half: a signed offset in words from the end of the pointer. */
function offsetOf(low: number): number {
  return low >> 2;
}

/**
 * The message with `Config.v8Flags` set to `flags`. The root must be a struct reached by a near pointer (what
 * capnp-es, which Miniflare bundles, writes) with a null `v8Flags`; anything else is refused, not guessed at.
 */
export function withV8Flags(message: Uint8Array, flags: readonly string[]): Uint8Array {
  for (const flag of flags) if (!isV8Flag(flag)) throw new Error(`not a V8 flag: ${JSON.stringify(flag)}`);
  const { sizes, start } = framing(message);
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const segment0 = sizes[0] ?? 0;
  const rootLow = view.getUint32(start, true);
  const rootHigh = view.getUint32(start + 4, true);
  if ((rootLow & 3) !== 0) throw new Error("the root pointer is not a near struct pointer");
  const dataWords = rootHigh & 0xffff;
  const pointerCount = rootHigh >>> 16;
  if (pointerCount <= V8_FLAGS_POINTER) throw new Error("the root struct has no v8Flags pointer");
  const slot = 1 + offsetOf(rootLow) + dataWords + V8_FLAGS_POINTER; // in words from segment 0's start
  if (slot >= segment0) throw new Error("the root struct lies outside the first segment");
  if (view.getUint32(start + slot * WORD, true) !== 0 || view.getUint32(start + slot * WORD + 4, true) !== 0) {
    throw new Error("the message already sets v8Flags");
  }

  // Appended to segment 0: the list of pointers (one word each), then each flag as NUL-terminated bytes.
  const texts = flags.map((flag) => new TextEncoder().encode(flag));
  const textWords = texts.map((text) => Math.ceil((text.length + 1) / WORD));
  const added = flags.length + textWords.reduce((sum, words) => sum + words, 0);
  const out = new Uint8Array(message.byteLength + added * WORD);
  const outView = new DataView(out.buffer);
  const segment0End = start + segment0 * WORD;
  out.set(message.subarray(0, segment0End), 0);
  out.set(message.subarray(segment0End), segment0End + added * WORD);
  outView.setUint32(4, segment0 + added, true);

  const list = segment0; // the list's first word, in words from segment 0's start
  // List pointer: kind 1, offset from the end of the pointer, element size 6 (pointer), element count.
  outView.setUint32(start + slot * WORD, (((list - slot - 1) << 2) | 1) >>> 0, true);
  outView.setUint32(start + slot * WORD + 4, ((flags.length << 3) | 6) >>> 0, true);
  let text = list + flags.length;
  texts.forEach((bytes, i) => {
    const element = list + i;
    // Text: a list of bytes (element size 2) whose count includes the NUL terminator.
    outView.setUint32(start + element * WORD, (((text - element - 1) << 2) | 1) >>> 0, true);
    outView.setUint32(start + element * WORD + 4, (((bytes.length + 1) << 3) | 2) >>> 0, true);
    out.set(bytes, start + text * WORD);
    text += textWords[i] ?? 0;
  });
  return out;
}

/** `Config.v8Flags` of a message (for tests and checks): null when the field is not set. */
export function v8FlagsOf(message: Uint8Array): string[] | null {
  const { start } = framing(message);
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const rootLow = view.getUint32(start, true);
  const rootHigh = view.getUint32(start + 4, true);
  const dataWords = rootHigh & 0xffff;
  if ((rootLow & 3) !== 0 || rootHigh >>> 16 <= V8_FLAGS_POINTER) return null;
  const slot = 1 + offsetOf(rootLow) + dataWords + V8_FLAGS_POINTER;
  const low = view.getUint32(start + slot * WORD, true);
  const high = view.getUint32(start + slot * WORD + 4, true);
  if (low === 0 && high === 0) return null;
  if ((low & 3) !== 1 || (high & 7) !== 6) throw new Error("v8Flags is not a near list of pointers");
  const list = slot + 1 + offsetOf(low);
  const flags: string[] = [];
  for (let i = 0; i < high >>> 3; i++) {
    const element = list + i;
    const textLow = view.getUint32(start + element * WORD, true);
    const textHigh = view.getUint32(start + element * WORD + 4, true);
    if ((textLow & 3) !== 1 || (textHigh & 7) !== 2) throw new Error("a v8Flags element is not a near text");
    const at = start + (element + 1 + offsetOf(textLow)) * WORD;
    flags.push(new TextDecoder().decode(message.subarray(at, at + (textHigh >>> 3) - 1)));
  }
  return flags;
}
