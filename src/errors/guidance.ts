/**
 * The Markdown subset of the catalog's texts (`what_you_should_do` carries Markdown as published, docs/errors.md
 * docs/negotiation.md) rendered as HTML for the pages (docs/errors.md): paragraphs (blank-line separated; single line breaks
 * join), numbered lists (`1. `), bulleted lists (`- `, `* `, `+ `) and `**bold**`. Nothing else is Markdown here:
 * every other character is text, escaped by the `html` template, so no input can produce markup beyond these
 * elements. Pure.
 */
import { BoundedCache } from "../shared/bounded-cache";
import { html, join, type Html } from "./html";

/** A block of the subset: `kind` is the discriminant. */
export type GuidanceBlock =
  | { readonly kind: "paragraph"; readonly text: string }
  | { readonly kind: "ordered"; readonly start: number; readonly items: readonly string[] }
  | { readonly kind: "bulleted"; readonly items: readonly string[] };

const ORDERED = /^ {0,3}(\d{1,9})[.)][ \t]+(.*)$/;
const BULLETED = /^ {0,3}[-*+][ \t]+(.*)$/;

/**
 * Splits the text into blocks. A list item starts at its marker line and runs to the next marker, blank line or
 * non-indented line of another kind; a line of text right after a paragraph line continues that paragraph
 * (CommonMark §4.8), and a list may follow a paragraph line directly, as the published texts do
 * ("Recommended approach:\n1. Wait 30 seconds…").
 */
export function guidanceBlocks(markdown: string): GuidanceBlock[] {
  const blocks: GuidanceBlock[] = [];
  let paragraph: string[] = [];
  let list: { kind: "ordered"; start: number; items: string[] } | { kind: "bulleted"; items: string[] } | null = null;
  const flush = (): void => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    if (list !== null) blocks.push(list);
    paragraph = [];
    list = null;
  };
  for (const rawLine of markdown.split(/\r\n|\r|\n/)) {
    const line = rawLine.trimEnd();
    if (line.trim() === "") {
      flush();
      continue;
    }
    const ordered = ORDERED.exec(line);
    const bulleted = ordered === null ? BULLETED.exec(line) : null;
    if (ordered !== null) {
      const [, number = "1", text = ""] = ordered;
      if (list?.kind !== "ordered") {
        flush();
        list = { kind: "ordered", start: Number(number), items: [] };
      }
      list.items.push(text.trim());
    } else if (bulleted !== null) {
      if (list?.kind !== "bulleted") {
        flush();
        list = { kind: "bulleted", items: [] };
      }
      list.items.push((bulleted[1] ?? "").trim());
    } else if (list !== null && /^\s/.test(line) && list.items.length > 0) {
      // An indented line continues the current item (lazy continuation of a list item).
      list.items[list.items.length - 1] += " " + line.trim();
    } else {
      if (list !== null) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return blocks;
}

// The texts are the catalog's (plus a variant per dynamic Retry-After): a small memo makes the page's guidance a
// lookup. Bounded (docs/configuration.md): oldest made first out (a hit is `peek`, one Map lookup), and only short texts kept.
const MEMO_ENTRIES = 256;
const memo = new BoundedCache<string, Html>({ capacity: MEMO_ENTRIES });
const MEMO_MAX_TEXT = 4096;

/** The blocks as HTML: `<p>`, `<ol>` (with `start` when not 1), `<ul>`; text escaped, `**x**` → `<strong>`. */
export function renderGuidance(markdown: string): Html {
  const known = memo.peek(markdown);
  if (known !== undefined) return known;
  const rendered = renderBlocks(markdown);
  if (markdown.length <= MEMO_MAX_TEXT) {
    memo.set(markdown, rendered);
  }
  return rendered;
}

function renderBlocks(markdown: string): Html {
  return join(
    guidanceBlocks(markdown).map((block) => {
      switch (block.kind) {
        case "paragraph":
          return html`<p>${inline(block.text)}</p>`;
        case "ordered":
          return html`<ol${block.start === 1 ? "" : html` start="${block.start}"`}>${block.items.map((i) => html`<li>${inline(i)}</li>`)}</ol>`;
        case "bulleted":
          return html`<ul>${block.items.map((i) => html`<li>${inline(i)}</li>`)}</ul>`;
      }
    }),
    "\n",
  );
}

/** `**bold**` → `<strong>`; an unmatched `**` stays text. Each text piece goes through the template, escaped. */
function inline(text: string): Html {
  const parts: Html[] = [];
  const strong = /\*\*(?=\S)(.+?)\*\*/g;
  let last = 0;
  for (let m = strong.exec(text); m !== null; m = strong.exec(text)) {
    parts.push(html`${text.slice(last, m.index)}<strong>${m[1] ?? ""}</strong>`);
    last = m.index + m[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return join(parts);
}
