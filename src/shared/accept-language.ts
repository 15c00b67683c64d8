/**
 * `Accept-Language` (RFC 9110 §12.5.4) read as a language priority list and matched by RFC 4647 §3.4 "Lookup": the
 * one best language out of the ones a table offers, or the table's fallback. Generic: the table says which tags
 * exist (src/errors/language.ts has the errors' one). Pure; linear in the header's length but for the sort of its
 * members by weight.
 */

/** What a lookup can pick. */
export interface LanguageTable<T extends string> {
  /**
   * Lower-case language tag → what it picks. `null` stops the lookup of a range at that tag: neither it nor any
   * shorter form of the range picks anything (a `zh-Hant` reader is not sent the `zh` offer of Simplified Chinese).
   */
  readonly tags: ReadonlyMap<string, T | null>;
  /** RFC 4647 §3.4's "default": no `Accept-Language`, `*`, or nothing that matched. Never a refusal (no 406). */
  readonly fallback: T;
}

/** One member of the header: a language range and its weight. */
interface Range {
  readonly range: string;
  readonly q: number;
}

/** RFC 4647 §2.1 language-range: `*`, or 1–8 letters then `-` and 1–8 letters or digits, repeated. */
const RANGE = /^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/;
/** RFC 9110 §12.4.2 qvalue: `0` to `0.999`, or `1` to `1.000`. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The members of the header, best first: highest weight, then the header's own order (a stable sort). A member
 * that does not parse, or whose weight is malformed, is skipped, never fatal. Weight 0 ("not acceptable") members
 * are returned apart: they are refused, not chosen.
 */
export function languagePriorityList(header: string): { readonly wanted: Range[]; readonly refused: Set<string> } {
  const wanted: Range[] = [];
  const refused = new Set<string>();
  for (const member of header.split(",")) {
    const [rawRange = "", ...params] = member.split(";");
    const range = rawRange.trim().toLowerCase();
    if (!RANGE.test(range)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [name = "", value = ""] = param.split("=", 2);
      if (name.trim().toLowerCase() !== "q") continue;
      const text = value.trim();
      if (QVALUE.test(text)) q = Number(text);
      else valid = false;
    }
    if (!valid) continue;
    if (q === 0) refused.add(range);
    else wanted.push({ range, q });
  }
  // Array.prototype.sort is stable (ECMA-262 since 2019): equal weights keep the header's order.
  wanted.sort((a, b) => b.q - a.q);
  return { wanted, refused };
}

/**
 * RFC 4647 §3.4 Lookup over the header's priority list: each range in turn, then ever shorter forms of it
 * (`de-CH-1996` → `de-CH` → `de`; a single-character subtag left last goes with the one after it), the first tag
 * the table offers wins. `*` is skipped when other ranges follow it and means the fallback otherwise; a range the
 * header refuses (`q=0`) is never picked, also when another range shortens to it.
 */
export function lookupLanguage<T extends string>(header: string | null, table: LanguageTable<T>): T {
  if (header === null) return table.fallback;
  const { wanted, refused } = languagePriorityList(header);
  for (const { range } of wanted) {
    if (range === "*") continue;
    const found = lookupRange(range, table, refused);
    if (found !== null) return found;
  }
  return table.fallback;
}

function lookupRange<T extends string>(range: string, table: LanguageTable<T>, refused: Set<string>): T | null {
  let tag = range;
  for (;;) {
    if (!refused.has(tag)) {
      const found = table.tags.get(tag);
      if (found !== undefined) return found;
    }
    let cut = tag.lastIndexOf("-");
    if (cut === -1) return null;
    // RFC 4647 §3.4: "If the character before the removed subtag is a singleton, remove it as well".
    if (cut >= 2 && tag[cut - 2] === "-") cut -= 2;
    tag = tag.slice(0, cut);
  }
}
