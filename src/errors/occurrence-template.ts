/**
 * Two occurrences of one error differ only in five values: `type` (it carries the requested zone's
 * scheme and authority), `instance` and `ray_id` (the ray), `timestamp` and `zone`. Everything else in
 * `ErrorFields` is a function of the code, the retry value, `request_reached_origin`, the footer and, for 524, the detail
 * (it names the zone's read timeout) (pipeline.ts `errorFields`, `withRetryGuidance`, `withZoneWords`). So each body
 * format renders a (code, detail, retry_after, footer) body once per isolate with a
 * marker in each of those places, splits it there, and an error then costs one concatenation of the constant parts
 * with its five values encoded the way the renderer would have encoded them.
 *
 * The rendering stays the single source of truth: the template is made by the real renderer, and a body whose
 * constant text already holds the marker character cannot be split safely and is rendered in full. Tests compare
 * the spliced body with the full rendering for every catalog code (test/workers/errors/occurrence-template.test.ts).
 *
 * `bytes` gives the same body as UTF-8, assembled from constant parts encoded once per template: a Response made
 * from bytes skips the runtime's conversion of a string body (measured in workerd: a 9.4 KB page as a string cost
 * 15 µs per Response, as bytes assembled per error 11 µs, and the JSON body likewise).
 *
 * Tests compare the bodies with the full rendering over sequences of occurrences. Pure.
 */
import type { ErrorFields } from "./fields";

/** The fields that vary per occurrence, in no particular order (a renderer places them where it wants). */
type Slot = "type" | "instance" | "ray_id" | "timestamp" | "zone" | "trace_id";
const SLOTS: readonly Slot[] = ["type", "instance", "ray_id", "timestamp", "zone", "trace_id"];
const MARK = "\u0001";

interface Template {
  /** Text between the slots: `parts.length === slots.length + 1`. */
  readonly parts: readonly string[];
  readonly slots: readonly Slot[];
  /** How each slot is encoded: `encodings[i]` applies to `slots[i]`. */
  readonly encodings: readonly Encode[];
  /** The parts as UTF-8, encoded on first use of `bytes`. */
  partBytes?: readonly Uint8Array[];
  /** Sum of the parts' byte lengths. */
  partBytesLength?: number;
}

export interface OccurrenceRenderer {
  /** The body as text. */
  readonly text: (fields: ErrorFields) => string;
  /** The same body as UTF-8 bytes, a new array per call. */
  readonly bytes: (fields: ErrorFields) => Uint8Array;
}

type Encode = (value: string) => string;
/** Keyed by `retryKey`: the retry value and `request_reached_origin` in one number. */
type ByRetry = Map<number, Template | null>;
/** Keyed by the detail: the same string object per code except 524's (one per read timeout), no string built. */
type ByDetail = Map<string, ByRetry>;
type ByFooter = Map<string, ByDetail>;

const utf8 = new TextEncoder();

/** Bounded: dynamic Retry-After values (rate limiting) make one key per value; a full map simply starts again. */
const MAX_TEMPLATES = 512;

/**
 * `render` made cheap per occurrence. `encode` is how the renderer writes one slot value into its output (JSON
 * string literal, HTML text, YAML double-quoted scalar): it must be applied to the marker and to the values alike,
 * and it must be what `render` does to those fields. `more` are other encodings the same body uses for the same
 * fields elsewhere (the HTML page's JSON island): each must turn the marker into text that no other
 * encoding makes, so the split knows which encoding each place wants.
 */
export function occurrenceTemplate(
  render: (fields: ErrorFields) => string,
  encode: Encode,
  ...more: readonly Encode[]
): OccurrenceRenderer {
  // Keyed by code, then by footer, then by retry value: no string is built per error to find the template.
  const byCode = new Map<number, ByFooter>();
  let size = 0;
  const slotOf = new Map<string, { readonly slot: Slot; readonly encoding: Encode }>();
  for (const encoding of [encode, ...more]) {
    for (const slot of SLOTS) slotOf.set(encoding(`${MARK}${slot}${MARK}`), { slot, encoding });
  }
  const pattern = new RegExp([...slotOf.keys()].map(escapeRegExp).join("|"), "g");

  function build(f: ErrorFields): Template | null {
    if (`${f.footer}${f.what_you_should_do}${f.detail}${f.title}${f.error_name}`.includes(MARK)) return null;
    const marked: ErrorFields = {
      ...f,
      type: `${MARK}type${MARK}`,
      instance: `${MARK}instance${MARK}`,
      ray_id: `${MARK}ray_id${MARK}`,
      timestamp: `${MARK}timestamp${MARK}`,
      zone: `${MARK}zone${MARK}`,
      // A traced error's template has a sixth slot; an untraced one has no `trace_id` at all.
      ...(f.trace_id === undefined ? {} : { trace_id: `${MARK}trace_id${MARK}` }),
    };
    const text = render(marked);
    const parts: string[] = [];
    const slots: Slot[] = [];
    const encodings: Encode[] = [];
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      const found = slotOf.get(match[0]);
      if (found === undefined) return null;
      parts.push(text.slice(last, match.index));
      slots.push(found.slot);
      encodings.push(found.encoding);
      last = match.index + match[0].length;
    }
    parts.push(text.slice(last));
    // A marker that the renderer transformed some other way (it should not) means the split is not trustworthy.
    if (parts.some((part) => part.includes(MARK))) return null;
    return { parts, slots, encodings };
  }

  function templateFor(f: ErrorFields): Template | null {
    let byFooter = byCode.get(f.error_code);
    if (byFooter === undefined) byCode.set(f.error_code, (byFooter = new Map() as ByFooter));
    let byDetail = byFooter.get(f.footer);
    if (byDetail === undefined) byFooter.set(f.footer, (byDetail = new Map() as ByDetail));
    let byRetry = byDetail.get(f.detail);
    if (byRetry === undefined) byDetail.set(f.detail, (byRetry = new Map() as ByRetry));
    const key = retryKey(f);
    let template = byRetry.get(key);
    if (template === undefined) {
      if (size >= MAX_TEMPLATES) {
        byCode.clear();
        size = 0;
        byRetry = new Map() as ByRetry;
        byFooter = new Map([[f.footer, new Map([[f.detail, byRetry]])]]);
        byCode.set(f.error_code, byFooter);
      }
      template = build(f);
      byRetry.set(key, template);
      size++;
    }
    return template;
  }

  return {
    text: (f) => {
      const template = templateFor(f);
      if (template === null) return render(f);
      const { parts, slots, encodings } = template;
      let out = parts[0] as string;
      for (let i = 0; i < slots.length; i++) {
        out += (encodings[i] as Encode)(f[slots[i] as Slot] ?? "") + (parts[i + 1] as string);
      }
      return out;
    },
    bytes: (f) => {
      const template = templateFor(f);
      if (template === null) return utf8.encode(render(f));
      const partBytes = (template.partBytes ??= template.parts.map((part) => utf8.encode(part)));
      const fixed = (template.partBytesLength ??= partBytes.reduce((sum, part) => sum + part.length, 0));
      const { slots, encodings } = template;
      const encoded = slots.map((slot, i) => (encodings[i] as Encode)(f[slot] ?? ""));
      // UTF-8 takes at most 3 bytes per UTF-16 code unit: room for the worst case, so encodeInto never truncates.
      const out = new Uint8Array(fixed + 3 * encoded.reduce((sum, value) => sum + value.length, 0));
      out.set(partBytes[0] as Uint8Array, 0);
      let at = (partBytes[0] as Uint8Array).length;
      for (let i = 0; i < encoded.length; i++) {
        const value = encoded[i] as string;
        const ascii = writeAscii(out, at, value);
        at = ascii !== -1 ? ascii : at + utf8.encodeInto(value, out.subarray(at)).written;
        const part = partBytes[i + 1] as Uint8Array;
        out.set(part, at);
        at += part.length;
      }
      return out.subarray(0, at);
    },
  };
}

/**
 * `value` written at `at` when it is all ASCII (ray, timestamp, a type URL and a zone nearly always are), returning
 * the end; -1 at the first other character (the caller then encodes the whole value over what was written). A loop
 * rather than `encodeInto(value, out.subarray(at))`, which makes a view per value: ~10 µs of workerd CPU less per
 * error under load in one A/B run (docs/benchmarks.md "third pass").
 */
function writeAscii(out: Uint8Array, at: number, value: string): number {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x80) return -1;
    out[at + i] = c;
  }
  return at + value.length;
}

/**
 * The retry value (or none), `request_reached_origin` (three values) and whether a `trace_id` is present in one
 * number, so no string is built per
 * error: both are constant text in the body, the rest of which the code and footer decide.
 */
function retryKey(f: ErrorFields): number {
  const reached = f.request_reached_origin === null ? 0 : f.request_reached_origin ? 1 : 2;
  const key = ((f.retry_after ?? -1) + 1) * 3 + reached;
  // A traced error (a `trace_id` slot) has a template of its own: negative keys.
  return f.trace_id === undefined ? key : -1 - key;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}
