/**
 * The one HTML escaper: safe in an element body and in a quoted attribute value (HTML Living Standard §13.1.2.6,
 * §13.5): the five characters that can end a text run or an attribute value, or start a character reference.
 * Every page of the service (error pages, the analytics page, inlined custom assets) escapes with it.
 */
const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  // Most values hold none of the five: the test spares them the replace (and its new string).
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) : text;
}
