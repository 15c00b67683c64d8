/**
 * The HTML shell shared by every page the service renders (errors, problems, the reference): a complete,
 * self-contained document (contract §1.3) with one inline stylesheet and nothing else: no scripts, no external
 * requests, no `style` attributes, so it renders under the strict CSP sent with it (headers.ts).
 */

/** The only stylesheet. Light and dark via `prefers-color-scheme`; fluid from 320 px to desktop widths. */
export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1d232b;--muted:#5a6472;--card:#fff;--line:#d9dee5;--accent:#b42318;--ok:#146c2e}
@media (prefers-color-scheme:dark){:root{--bg:#11151a;--fg:#e6e9ed;--muted:#9aa4b1;--card:#1a2027;--line:#2d3640;--accent:#ff8a80;--ok:#7bd88f}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.code{margin:0;color:var(--accent);font-weight:700;letter-spacing:.04em;text-transform:uppercase;font-size:.85rem}
h1{margin:.25rem 0 1rem;font-size:clamp(1.4rem,5vw,2rem);line-height:1.2}
h2{margin:1.5rem 0 .5rem;font-size:1.1rem}
section,.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem 1.25rem;margin:1rem 0}
p{margin:.5rem 0}
section>:first-child,.card>:first-child{margin-top:0}
ol,ul{margin:.5rem 0;padding-left:1.5rem}li{margin:.2rem 0}
main.wide{max-width:72rem}
.path{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:1rem 0}
.hop{flex:1 1 8rem;border:1px solid var(--line);border-radius:.5rem;padding:.5rem .75rem;background:var(--card)}
.hop-name{display:block;font-weight:600}
.hop.working .hop-state{color:var(--ok)}.hop.working .hop-state::before{content:"\\2713  "}
.hop.failed{border-color:var(--accent);border-width:2px}.hop.failed .hop-state{color:var(--accent);font-weight:600}
.hop.failed .hop-state::before{content:"\\2715  "}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92rem}
.retry-yes{color:var(--ok);font-weight:600}.retry-no{color:var(--accent);font-weight:600}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem;overflow-wrap:normal}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
a{color:inherit}
footer{color:var(--muted);font-size:.85rem;margin-top:2rem}
@media (max-width:30rem){dl{grid-template-columns:1fr}dt{margin-top:.4rem}}`;

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an element body or a quoted attribute value (HTML Living Standard §13.1.2.6, §13.5). */
function escapeText(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;
}

/**
 * Markup that is safe to insert as is: built by `html` (every interpolation escaped) or marked by `raw`. Escaping is
 * the default (style.md, after hono's `html` helper): a reviewer only needs to read the `raw` calls.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What `html` accepts: text (escaped), numbers, safe markup (inserted as is), and lists of them (joined). */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function insert(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(insert).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeText(String(value));
}

/** A tagged template whose every interpolation is escaped unless it is already `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += insert(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

/** Marks trusted markup (a constant of this module, never request data). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A complete document around `body`. `title` is plain text. */
export function htmlPage(title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${raw(PAGE_STYLE)}</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}

/**
 * The guidance's Markdown subset as HTML (catalog texts are written in it, as published): paragraphs separated by a
 * blank line, `1.` numbered and `-` / `*` bulleted lists, and `**bold**`. Everything else is text, escaped.
 */
export function markdownBlocks(text: string): SafeHtml {
  const blocks: SafeHtml[] = [];
  for (const chunk of text.split(/\n\s*\n/)) {
    const lines = chunk.split("\n").filter((l) => l.trim() !== "");
    let paragraph: string[] = [];
    let list: { kind: "ol" | "ul"; items: string[] } | null = null;
    const flush = (): void => {
      if (paragraph.length > 0) blocks.push(html`<p>${inline(paragraph.join(" "))}</p>`);
      paragraph = [];
      if (list) {
        const items = list.items.map((item) => html`<li>${inline(item)}</li>`);
        blocks.push(list.kind === "ol" ? html`<ol>${items}</ol>` : html`<ul>${items}</ul>`);
      }
      list = null;
    };
    for (const line of lines) {
      const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
      const bulleted = /^\s*[-*]\s+(.*)$/.exec(line);
      const kind = numbered ? "ol" : bulleted ? "ul" : null;
      const item = (numbered ?? bulleted)?.[1];
      if (kind && item !== undefined) {
        if (paragraph.length > 0 || (list && list.kind !== kind)) flush();
        list ??= { kind, items: [] };
        list.items.push(item);
      } else {
        if (list) flush();
        paragraph.push(line.trim());
      }
    }
    flush();
  }
  return new SafeHtml(blocks.map((b) => b.value).join("\n"));
}

/** `**bold**` inside one line of text; the rest escaped. */
function inline(text: string): SafeHtml {
  const parts = text.split(/\*\*([^*\n]+)\*\*/);
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<strong>${part}</strong>` : part))}`;
}
