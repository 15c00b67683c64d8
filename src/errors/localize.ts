/**
 * The one lookup of the service's prose in a language (docs/languages.md): a catalog entry with its title, detail
 * and guidance in that language, the footer, and the words around them. English is the catalog itself, untouched:
 * an English error costs what it always did. Another language's entry is made once per code and isolate (a dynamic
 * wait: once per wait, bounded), so a localised error costs a Map lookup more than an English one. Pure.
 */
import { BoundedCache } from "../shared/bounded-cache";
import type { CatalogEntry } from "./catalog";
import type { Language } from "./language";
import { DE } from "./languages/de";
import { EN_WORDS } from "./languages/en";
import { ES } from "./languages/es";
import { FR } from "./languages/fr";
import { JA } from "./languages/ja";
import { PT_BR } from "./languages/pt-br";
import { ZH_CN } from "./languages/zh-cn";
import type { CatalogCode, CodeText, Translation, Words } from "./languages/words";

/** Every language but English, which is the catalog's own text. */
const TRANSLATIONS: Readonly<Record<Exclude<Language, "en">, Translation>> = {
  de: DE,
  es: ES,
  fr: FR,
  ja: JA,
  "pt-BR": PT_BR,
  "zh-CN": ZH_CN,
};

/** The words of `language` around the catalog's texts. */
export function wordsOf(language: Language): Words {
  return language === "en" ? EN_WORDS : TRANSLATIONS[language].words;
}

/** The texts of `code` in `language` (not English), or `undefined` for a code outside the catalog. */
function textOf(language: Exclude<Language, "en">, code: number): CodeText | undefined {
  const codes: Readonly<Record<number, CodeText>> = TRANSLATIONS[language].codes;
  return codes[code];
}

/** A localised entry per (language, code) for the catalog's own wait; made on first use. */
const entries = new Map<Language, Map<number, CatalogEntry>>();
/** Entries for a dynamic wait (rate limiting): per language, keyed by code and wait, oldest out. */
const waited = new Map<Language, BoundedCache<number, CatalogEntry>>();
const MAX_WAITED = 512;

/**
 * `entry` in `language` (not English: the caller keeps the catalog's entry and its own wait rewrite), its guidance
 * naming `wait` (the wait actually sent; the catalog's when `null` or equal). An entry whose code has no text (none
 * today: the type makes every language complete) stays English.
 */
export function localizedEntry(
  entry: CatalogEntry,
  language: Exclude<Language, "en">,
  wait: number | null,
  readTimeout?: number,
): CatalogEntry {
  // 524 names the zone's own read timeout (docs/errors.md "Words"): made per error, as the English text is.
  if (readTimeout !== undefined && readTimeout !== CATALOG_READ_TIMEOUT && entry.code === 524) {
    return translated(entry, language, wait ?? entry.retryAfter ?? 0, readTimeout);
  }
  const dynamic = wait !== null && entry.retryAfter !== null && wait !== entry.retryAfter;
  if (!dynamic) {
    let byCode = entries.get(language);
    if (byCode === undefined) entries.set(language, (byCode = new Map<number, CatalogEntry>()));
    let known = byCode.get(entry.code);
    if (known === undefined) byCode.set(entry.code, (known = translated(entry, language, entry.retryAfter ?? 0)));
    return known;
  }
  let byWait = waited.get(language);
  if (byWait === undefined) waited.set(language, (byWait = new BoundedCache({ capacity: MAX_WAITED })));
  const key = entry.code * 0x1_0000_0000 + wait;
  let known = byWait.peek(key);
  if (known === undefined) byWait.set(key, (known = translated(entry, language, wait)));
  return known;
}

/** The catalog's read timeout of 524 (seconds): the published Proxy Read Timeout. */
const CATALOG_READ_TIMEOUT = 120;

function translated(
  entry: CatalogEntry,
  language: Exclude<Language, "en">,
  wait: number,
  readTimeout = CATALOG_READ_TIMEOUT,
): CatalogEntry {
  const text = textOf(language, entry.code);
  if (text === undefined) return entry;
  return {
    ...entry,
    title: text.title,
    detail: typeof text.detail === "string" ? text.detail : text.detail(readTimeout),
    whatYouShouldDo: typeof text.whatYouShouldDo === "string" ? text.whatYouShouldDo : text.whatYouShouldDo(wait),
  };
}

/** The languages that have every code's texts: all of them, by type; listed for tests. */
export function translatedCodes(language: Exclude<Language, "en">): readonly CatalogCode[] {
  return Object.keys(TRANSLATIONS[language].codes).map(Number) as CatalogCode[];
}

/**
 * The `footer` in `language` for the deployment's operator: the same string object every time (fields.ts
 * `footerText`: the per-code body templates find it by identity).
 */
export function footerIn(words: Words, operator: string): string {
  let known = footers.get(words.language);
  if (known === undefined || known.operator !== operator) {
    known = { operator, footer: words.footer(operator) };
    footers.set(words.language, known);
  }
  return known.footer;
}
const footers = new Map<Language, { readonly operator: string; readonly footer: string }>();
