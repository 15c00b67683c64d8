/**
 * What one language of the service's prose says (docs/languages.md): the catalog's three texts of every code, and
 * the words the pages, the Markdown body and the reference put around them. A language module is data of this
 * shape; the type makes it complete (every catalog code, every word), so no page ever mixes in English by omission.
 * Numbers, codes, header names and product names stay as they are in every language. Pure.
 */
import type { CATALOG, ErrorCategory } from "../catalog";
import type { Language } from "../language";

/** Every code of the catalog, as a type: a language module must have a text for each. */
export type CatalogCode = (typeof CATALOG)[number]["code"];

/** One code's texts in a language. */
export interface CodeText {
  /** The short title, without `Error {code}: ` (`Words.errorTitle` adds it). */
  readonly title: string;
  /** What happened. A function for a text that names the origin's read timeout (524), given in seconds. */
  readonly detail: string | ((readTimeout: number) => string);
  /**
   * What to do, in the catalog's Markdown subset (bold, paragraphs, lists). A retryable code's text names its wait:
   * a function of the wait in seconds, so a dynamic `Retry-After` is said as sent (docs/errors.md "Words").
   */
  readonly whatYouShouldDo: string | ((wait: number) => string);
}

/** The sentences and labels around a code's texts. */
export interface Words {
  readonly language: Language;
  /** The wire `title`: `Error 522: Connection timed out`. */
  readonly errorTitle: (code: number, title: string) => string;
  /** The `footer` field: who generated the error. */
  readonly footer: (operator: string) => string;
  /** A duration in seconds, as running text: `1 second`, `30 seconds`. */
  readonly seconds: (n: number) => string;

  /** Who has to act (wording.ts): an intentional block, a fault the owner must fix, nothing for the owner. */
  readonly ownerBlock: string;
  readonly ownerFix: string;
  readonly ownerNone: string;
  /** The lead of the not-retryable note, set in bold, then one of the three reasons (each starts as it joins). */
  readonly notRetryableLead: string;
  readonly notRetryableBlock: string;
  readonly notRetryableFix: string;
  readonly notRetryableSame: string;
  /** The retryable note: bold lead, then the wait. */
  readonly retryHelpsLead: string;
  readonly retryHelpsWait: (wait: string) => string;

  /** The error page and box. */
  readonly eyebrow: (code: number, status: number) => string;
  readonly whatHappened: string;
  readonly whatYouCanDo: string;
  readonly details: string;
  readonly rayId: string;
  readonly copy: string;
  /** The page script's words after a click on Copy. */
  readonly copied: string;
  readonly selectAndCopy: string;
  readonly timeUtc: string;
  readonly website: string;
  readonly httpStatus: string;
  readonly errorName: string;
  readonly category: string;
  readonly moreHelp: string;
  readonly aboutError: (code: number) => string;

  /** The "where it broke" strip. */
  readonly whereItBroke: string;
  readonly hopYou: string;
  readonly hopEdge: string;
  readonly hopWebsite: string;
  readonly subYou: string;
  readonly subEdge: string;
  readonly originServer: string;
  readonly stateWorking: string;
  readonly stateError: string;
  readonly stateBlocked: string;
  readonly stateNotReached: string;

  /** The Markdown body's section headings. */
  readonly mdWhatHappened: string;
  readonly mdWhatYouShouldDo: string;
  readonly mdMoreHelp: string;

  /** The reference (`{prefix}/errors`, `{prefix}/errors/{code}`). */
  readonly ref: ReferenceWords;
}

export interface ReferenceWords {
  readonly errorCodes: string;
  readonly eyebrow: string;
  readonly lead: string;
  readonly filter: string;
  readonly filterPlaceholder: string;
  /** The filter's count, `{n}` and `{total}` replaced by the page's script. */
  readonly filterCount: string;
  readonly class5xx: string;
  readonly class5xxAbout: string;
  readonly class1xxx: string;
  readonly class1xxxAbout: string;
  readonly categories: Readonly<Record<ErrorCategory, string>>;
  readonly noRetry: string;
  readonly retryAfterChip: (seconds: number) => string;
  /** The list's chip for a code that needs the owner, and the entry's label of the same fact. */
  readonly ownerAction: string;
  readonly ownerActionLabel: string;
  /** The Markdown table's yes/no column. */
  readonly yes: string;
  readonly no: string;
  readonly allCodes: string;
  readonly atAGlance: string;
  readonly retry: string;
  readonly notRetryable: (lead: string, reason: string) => string;
  readonly retryable: (wait: string, seconds: number) => string;
  readonly required: string;
  readonly notRequired: string;
  readonly whatToDo: string;
  readonly formats: string;
  /** The formats paragraph and its three items; `Accept` and the media types are set as code by the page. */
  readonly formatsLead: readonly [before: string, after: string];
  readonly formatHtml: string;
  /** `or` between the two JSON media types, then what the JSON body is. */
  readonly formatJson: readonly [or: string, rest: string];
  readonly formatMarkdown: string;
}

/** A language: its words and every code's texts. */
export interface Translation {
  readonly words: Words;
  readonly codes: Readonly<Record<CatalogCode, CodeText>>;
}
