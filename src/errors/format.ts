/**
 * Which representation of a service-generated error a request gets (docs/negotiation.md), and its Content-Type
 * (docs/errors.md: always with `charset=utf-8`). The negotiation itself is generic (src/shared/negotiate.ts);
 * this module only owns the error table and a small per-isolate memo of recent `Accept` values.
 */
import { BoundedCache } from "../shared/bounded-cache";
import { negotiate, type NegotiationTable } from "../shared/negotiate";

/** The four representations of an error (docs/errors.md). */
export const ERROR_FORMATS = ["json", "problem+json", "markdown", "html"] as const;
export type ErrorFormat = (typeof ERROR_FORMATS)[number];

/** A negotiated format and the exact Content-Type to send with it. */
export interface ErrorFormatChoice {
  readonly format: ErrorFormat;
  readonly contentType: string;
}

type ErrorMediaType = "text/html" | "application/json" | "application/problem+json" | "text/markdown";

/**
 * Offers in the server's order of preference, used only when a wildcard without a default among the tied
 * offers decides (e.g. `*\/*, text/html;q=0` → JSON: a client refusing HTML is most likely a program).
 */
export const ERROR_NEGOTIATION: NegotiationTable<ErrorMediaType> = {
  offers: ["text/html", "application/json", "application/problem+json", "text/markdown"],
  // docs/negotiation.md: `*/*` (and no Accept) → HTML, `text/*` → Markdown, `application/*` → application/json.
  wildcardDefaults: { "*/*": "text/html", "text/*": "text/markdown", "application/*": "application/json" },
  // docs/negotiation.md: nothing acceptable → HTML, never 406.
  fallback: "text/html",
};

const CHOICES: Readonly<Record<ErrorMediaType, ErrorFormatChoice>> = {
  "text/html": Object.freeze({ format: "html", contentType: "text/html; charset=utf-8" }),
  "application/json": Object.freeze({ format: "json", contentType: "application/json; charset=utf-8" }),
  "application/problem+json": Object.freeze({
    format: "problem+json",
    contentType: "application/problem+json; charset=utf-8",
  }),
  "text/markdown": Object.freeze({ format: "markdown", contentType: "text/markdown; charset=utf-8" }),
};

/**
 * Clients resend the same few Accept strings, so a memo turns negotiation into one Map lookup. It is
 * bounded (docs/configuration.md): at most MEMO_ENTRIES keys of at most MEMO_MAX_KEY characters (≈256 KiB worst
 * case); longer headers are negotiated every time (linear anyway) so they cannot evict the common ones.
 * When full, the oldest insertion is evicted (FIFO: a hit is `peek`, one Map lookup); see docs/negotiation.md.
 */
const MEMO_ENTRIES = 256;
const MEMO_MAX_KEY = 1024;
const memo = new BoundedCache<string, ErrorFormatChoice>({ capacity: MEMO_ENTRIES });

/** The format and Content-Type of an error for this `Accept` header value (`null` when absent). */
export function chooseErrorFormat(accept: string | null): ErrorFormatChoice {
  if (accept === null) return CHOICES[negotiate(null, ERROR_NEGOTIATION)];
  if (accept.length > MEMO_MAX_KEY) return CHOICES[negotiate(accept, ERROR_NEGOTIATION)];
  const known = memo.peek(accept);
  if (known !== undefined) return known;
  const choice = CHOICES[negotiate(accept, ERROR_NEGOTIATION)];
  memo.set(accept, choice);
  return choice;
}

/** The same choice without the memo: for benchmarks comparing the two, and for tests of the memo. */
export function chooseErrorFormatUncached(accept: string | null): ErrorFormatChoice {
  return CHOICES[negotiate(accept, ERROR_NEGOTIATION)];
}
