/**
 * The languages the service's prose is written in (docs/languages.md) and which one a request gets: its
 * `Accept-Language` by RFC 4647 §3.4 lookup (src/shared/accept-language.ts) over these tags, English when nothing
 * matches. Only the prose changes with the language; machine fields and headers never do (docs/languages.md). Pure.
 */
import { BoundedCache } from "../shared/bounded-cache";
import { lookupLanguage, type LanguageTable } from "../shared/accept-language";

/** Every language the prose exists in, as sent in `Content-Language` (RFC 5646 tags). English is the fallback. */
export const LANGUAGES = ["en", "de", "es", "fr", "ja", "pt-BR", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * Tags besides the languages' own that pick one of them (docs/languages.md "Which language"): a reader who asks for
 * Portuguese or Chinese without a region reads the one variant there is; `null` keeps the lookup of Traditional
 * Chinese from shortening to `zh` (Simplified), so such a reader gets English rather than the other script.
 */
const ALIASES: readonly (readonly [alias: string, language: string | null])[] = [
  ["pt", "pt-BR"],
  ["zh", "zh-CN"],
  ["zh-hans", "zh-CN"],
  ["zh-hans-cn", "zh-CN"],
  ["zh-hant", null],
  ["zh-tw", null],
  ["zh-hk", null],
  ["zh-mo", null],
];

function tableOf(languages: readonly Language[]): LanguageTable<Language> {
  const tags = new Map<string, Language | null>();
  for (const [alias, target] of ALIASES) {
    const language = languages.find((l) => l === target);
    if (language !== undefined) tags.set(alias, language);
    else if (target === null) tags.set(alias, null);
  }
  for (const language of languages) tags.set(language.toLowerCase(), language);
  return { tags, fallback: languages[0] ?? "en" };
}

/**
 * The language of a request for one set of languages (every language, or a zone's `languages`): a small memo per
 * set, since clients resend the same few headers. Bounded like the format's memo (docs/configuration.md).
 */
export class LanguageChooser {
  readonly #table: LanguageTable<Language>;
  readonly #memo = new BoundedCache<string, Language>({ capacity: MEMO_ENTRIES });

  /** `languages` in the zone's order (not empty): the first is what a request that matches none of them gets. */
  constructor(readonly languages: readonly Language[]) {
    this.#table = tableOf(languages);
  }

  /** The language for this `Accept-Language` value (`null` when absent). */
  choose(header: string | null): Language {
    if (header === null || this.languages.length === 1) return this.#table.fallback;
    if (header.length > MEMO_MAX_KEY) return lookupLanguage(header, this.#table);
    const known = this.#memo.peek(header);
    if (known !== undefined) return known;
    const chosen = lookupLanguage(header, this.#table);
    this.#memo.set(header, chosen);
    return chosen;
  }
}

const MEMO_ENTRIES = 256;
const MEMO_MAX_KEY = 1024;

/** Every language, English the fallback: a request on a zone that does not limit them. */
export const EVERY_LANGUAGE = new LanguageChooser(LANGUAGES);

/** The language of a request with this `Accept-Language` over every language. */
export function chooseLanguage(header: string | null): Language {
  return EVERY_LANGUAGE.choose(header);
}
