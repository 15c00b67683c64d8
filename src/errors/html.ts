/**
 * Escaping by default (docs/errors.md "every interpolated value HTML-escaped"; style.md Addendum, after hono's
 * `html` helper): every page of the service is written as html`...` templates, which escape each interpolated
 * value unless it is already `Html` (a fragment built by this module, so components nest) or marked with `raw()`.
 * A reviewer then only needs to read the `raw` calls. Pure: no bindings.
 */
import { escapeHtml } from "../shared/html-escape";

/** Markup that is safe to insert as is: only `html`, `raw` and `join` make one. */
export class Html {
  readonly #markup: string;
  constructor(markup: string, token: typeof TOKEN) {
    if (token !== TOKEN) throw new TypeError("Html is made by html`...` or raw()");
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

// Only this module can construct an Html, so no string reaches a page unescaped by accident.
const TOKEN: unique symbol = Symbol("Html");

/**
 * What a template accepts: text and numbers (escaped), fragments (as is), lists of these (joined), and
 * `false`/`null`/`undefined` (nothing, for `${cond && html`...`}`). `true` is refused by the type: it would print
 * "true", which is never what a page means.
 */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

/** Tagged template: the literal parts are trusted markup, every `${value}` is escaped (see `HtmlValue`). */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += serialize(values[i]) + (strings[i + 1] ?? "");
  return new Html(out, TOKEN);
}

/** Marks a trusted fragment (a constant stylesheet, an SVG icon): inserted without escaping. Use sparingly. */
export function raw(markup: string): Html {
  return new Html(markup, TOKEN);
}

/** Joins fragments with a separator (itself trusted markup, usually "\n"). */
export function join(parts: readonly HtmlValue[], separator = ""): Html {
  return new Html(parts.map(serialize).join(separator), TOKEN);
}

function serialize(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (typeof value === "string") return escapeHtml(value);
  if (typeof value === "number") return String(value);
  if (value === false || value === null || value === undefined) return "";
  let out = "";
  for (const item of value) out += serialize(item);
  return out;
}
