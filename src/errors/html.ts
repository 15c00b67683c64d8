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
.text{white-space:pre-wrap}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92rem}
.retry-yes{color:var(--ok);font-weight:600}.retry-no{color:var(--accent);font-weight:600}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;min-width:48rem;font-size:.92rem;overflow-wrap:normal}
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
export function escapeHtml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;
}

/** A complete document around already-escaped `body` markup. `title` is plain text and escaped here. */
export function htmlPage(title: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="robots" content="noindex">\n' +
    `<title>${escapeHtml(title)}</title>\n<style>${PAGE_STYLE}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`
  );
}

/**
 * The guidance text carries Markdown emphasis as published (`**Wait and retry.**`); on a page it becomes
 * `<strong>`. Runs on already-escaped text, whose `*` are the original ones, so it cannot introduce markup.
 */
export function markdownEmphasis(escaped: string): string {
  return escaped.includes("**") ? escaped.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>") : escaped;
}
