/**
 * The sentences the service adds around a code's own texts, derived from its fields so they can never contradict
 * them (docs/errors.md "Words"): who has to act (`owner_action_required`, and whether the error is the owner's own
 * block), whether retrying helps (`retryable`), and the wait the guidance names (`retry_after`, dynamic included).
 * Pure.
 */
import { BoundedCache } from "../shared/bounded-cache";
import type { ErrorCategory } from "./catalog";
import { EN_WORDS } from "./languages/en";
import type { Words } from "./languages/words";

/** What the sentences read: the fields every surface (error page, box, reference) has. */
export interface WhoActs {
  readonly error_category: ErrorCategory;
  readonly owner_action_required: boolean;
}

/**
 * An intentional block: the website's owner chose to refuse this request (an IP, country, browser or firewall rule
 * of theirs, category `access_denied` with owner action). Nothing is broken, so nothing is the owner's to "fix":
 * only they can lift the block. 1003 (direct IP access) is `access_denied` too, but the edge's rule, not the
 * owner's (`owner_action_required` false).
 */
export function isIntentionalBlock(f: WhoActs): boolean {
  return f.owner_action_required && f.error_category === "access_denied";
}

/**
 * Who has to act, one sentence (the page's and the box's "What happened", the reference's "Owner action"), in the
 * words of a language (docs/languages.md).
 */
export function ownerSentence(f: WhoActs, words: Words = EN_WORDS): string {
  if (isIntentionalBlock(f)) return words.ownerBlock;
  return f.owner_action_required ? words.ownerFix : words.ownerNone;
}

/** The lead words of the not-retryable note (the page sets them in bold). */
export const NOT_RETRYABLE_LEAD = EN_WORDS.notRetryableLead;

/** Why retrying will not help, after the lead (`Words.notRetryableLead`), for a code that is not retryable. */
export function notRetryableReason(f: WhoActs, words: Words = EN_WORDS): string {
  if (isIntentionalBlock(f)) return words.notRetryableBlock;
  return f.owner_action_required ? words.notRetryableFix : words.notRetryableSame;
}

/** `N second(s)`. */
export function seconds(n: number): string {
  return EN_WORDS.seconds(n);
}

const WAIT = /\b(\d+) seconds?\b/g;

/**
 * A guidance text written for the catalog's wait, said for the wait actually sent (a dynamic Retry-After,
 * docs/errors.md "Headers"): every "N seconds" that names the catalog's wait names `wait` instead. So a client is
 * never told two waits: a 20-second block reads "Wait at least 20 seconds … Wait 20 seconds …".
 */
export function guidanceForWait(text: string, catalogWait: number, wait: number): string {
  if (wait === catalogWait) return text;
  // A rate limit's block counts down one second at a time, so the same few waits recur: each text keeps its last
  // variants. Measured in Node 20 over 200,000 calls: the rewrite 2.9–5.2 µs a call, a hit 0.02–0.07 µs (the
  // replaceAll this replaced, 0.4–1.1 µs).
  let variants = memo.peek(text);
  if (variants === undefined) {
    variants = new BoundedCache<number, string>({ capacity: MEMO_WAITS });
    memo.set(text, variants);
  }
  const known = variants.peek(wait);
  if (known !== undefined) return known;
  const said = text.replace(WAIT, (mention, n: string) => (Number(n) === catalogWait ? seconds(wait) : mention));
  variants.set(wait, said);
  return said;
}

/** The code whose detail names the zone's read timeout. */
export const READ_TIMEOUT_CODE = 524;

const READ_WINDOW = /\b\d+(?:\.\d+)?-second Proxy Read Timeout window\b/;

/**
 * 524's detail with the zone's own read timeout (`read_timeout`, seconds, possibly fractional: "0.5-second") in place
 * of the published window: the catalog's text is written for the published platform's fixed 120 s.
 */
export function detailForReadTimeout(detail: string, readTimeout: number): string {
  return detail.replace(READ_WINDOW, `${readTimeout}-second Proxy Read Timeout window`);
}

// Bounded: the texts are the catalog's retryable ones (six); the waits per text at most MEMO_WAITS, oldest out.
const MEMO_TEXTS = 16;
const MEMO_WAITS = 128;
const memo = new BoundedCache<string, BoundedCache<number, string>>({ capacity: MEMO_TEXTS });
