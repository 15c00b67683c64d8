/**
 * The document shell shared by every page the service renders (error pages, problems, the reference): complete
 * and self-contained (docs/errors.md): one inline stylesheet and one inline script, no external requests, no
 * `style` attributes, no event-handler attributes, so it renders under the strict CSP sent with it, which allows
 * exactly these two by their SHA-256 (headers.ts). The script only adds conveniences (copy the ray ID, filter the
 * reference); without it every page is complete and readable.
 */
import { html, raw, type Html } from "./html";

/**
 * The colour palette: each custom property with its light value (the default) and its dark one
 * (`prefers-color-scheme: dark` on the service's pages; the page's own colour scheme for the box in an operator's
 * page, `BOX_STYLE`).
 */
const PALETTE: readonly (readonly [name: string, light: string, dark: string])[] = [
  ["--bg", "#f3f4f6", "#0f1317"],
  ["--fg", "#1b2027", "#e7eaee"],
  ["--muted", "#566070", "#9ba6b3"],
  ["--card", "#fff", "#171c22"],
  ["--line", "#d8dde4", "#2b333d"],
  ["--soft", "#eef0f3", "#1e252d"],
  ["--bad", "#b42318", "#ff8a80"],
  ["--bad-bg", "#fdecea", "#3a1d1b"],
  ["--ok", "#137333", "#73d990"],
  ["--ok-bg", "#e6f4ea", "#15311f"],
  ["--warn", "#9a5800", "#f2b45a"],
  ["--warn-bg", "#fdf1dc", "#352712"],
  ["--link", "#1a56c4", "#8ab4ff"],
  ["--focus", "#1a56c4", "#8ab4ff"],
];
const LIGHT = PALETTE.map(([name, light]) => `${name}:${light}`).join(";");
const DARK = PALETTE.map(([name, , dark]) => `${name}:${dark}`).join(";");
/** Each property as `light-dark(light, dark)` (CSS Color 5 §5.3): resolved by the element's used colour scheme. */
const LIGHT_DARK = PALETTE.map(([name, light, dark]) => `${name}:light-dark(${light},${dark})`).join(";");
const FONT = '16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif';

/**
 * The error box's rules (docs/errors.md): the page's stylesheet holds them, and so does the box's own stylesheet
 * inside its shadow root when an operator's page embeds it (`BOX_STYLE`), so both look the same.
 */
const BOX_RULES = `a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.eyebrow{margin:0;color:var(--bad);font-weight:700;letter-spacing:.05em;text-transform:uppercase;font-size:.8rem}
h1{margin:.3rem 0 .75rem;font-size:clamp(1.45rem,4.5vw,2.1rem);line-height:1.2}
h2{margin:0 0 .5rem;font-size:1.05rem}
p{margin:.5rem 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:.9rem 0}
@media (min-width:40rem){.card{padding:1.25rem 1.5rem}}
.card>:first-child{margin-top:0}.card>:last-child{margin-bottom:0}
.guidance ol,.guidance ul{margin:.5rem 0;padding-left:1.5rem}.guidance li{margin:.25rem 0}
.path{list-style:none;margin:1.25rem 0 0;padding:0;display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.5rem;text-align:center}
.hop{position:relative;display:flex;flex-direction:column;align-items:center;gap:.15rem;font-size:.9rem}
.hop+.hop::before{content:"";position:absolute;top:1.25rem;right:calc(50% + 1.6rem);width:calc(100% - 3.2rem + .5rem);border-top:2px solid var(--line)}
.hop svg{width:2.5rem;height:2.5rem;flex:none}
.hop .name{font-weight:600;line-height:1.25}.hop .sub{color:var(--muted);font-size:.8rem;line-height:1.25}
.hop .state{font-size:.8rem;font-weight:700;border-radius:1rem;padding:.05rem .55rem;margin-top:auto;white-space:nowrap}
.hop .sub{margin-bottom:.2rem}
@media (max-width:24rem){.hop{font-size:.85rem}.hop .state{font-size:.72rem;padding:0 .4rem}}
.working{color:var(--ok)}.working .state{background:var(--ok-bg)}
.error{color:var(--bad)}.error .state{background:var(--bad-bg)}
.blocked{color:var(--warn)}.blocked .state{background:var(--warn-bg)}
.not-reached{color:var(--muted)}.not-reached .state{background:var(--soft)}
.hop .name{color:var(--fg)}.hop .sub{color:var(--muted)}
.retry{display:flex;gap:.6rem;align-items:flex-start;border-radius:.5rem;padding:.6rem .8rem;margin:.9rem 0 0;font-weight:500}
.retry svg{width:1.4rem;height:1.4rem;flex:none;margin-top:.05rem}
.retry.yes{background:var(--ok-bg)}.retry.yes svg{color:var(--ok)}
.retry.no{background:var(--bad-bg)}.retry.no svg{color:var(--bad)}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.45rem 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.92rem}
.ray{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.ray code{user-select:all;background:var(--soft);border:1px solid var(--line);border-radius:.35rem;padding:.1rem .4rem}
button{font:inherit;font-size:.85rem;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:.4rem;padding:.2rem .7rem;cursor:pointer;min-height:2rem}
button:hover{background:var(--soft)}
@media (max-width:30rem){dl{grid-template-columns:minmax(0,1fr);gap:.1rem}dt{margin-top:.5rem}dt:first-child{margin-top:0}}`;

/** The only stylesheet. Light and dark via `prefers-color-scheme`; fluid from 320 px to desktop widths. */
export const PAGE_STYLE = `:root{color-scheme:light dark;${LIGHT}}
@media (prefers-color-scheme:dark){:root{${DARK}}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);font:${FONT};overflow-wrap:anywhere;-webkit-text-size-adjust:100%}
main{max-width:48rem;margin:0 auto;padding:1.25rem .75rem 2.5rem}
@media (min-width:40rem){main{padding:2.5rem 1.5rem 3rem}}
${BOX_RULES}
.eyebrow.neutral{color:var(--muted)}
h3{margin:1.25rem 0 .5rem;font-size:.95rem;color:var(--muted)}
.lead{font-size:1.08rem;margin:0}
footer{color:var(--muted);font-size:.85rem;margin-top:1.5rem}
.crumbs{margin:0 0 1rem;font-size:.9rem}
.filter{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:1rem 0}
.filter label{font-weight:600}
.filter input{font:inherit;flex:1 1 14rem;min-width:0;padding:.45rem .7rem;border:1px solid var(--line);border-radius:.5rem;background:var(--card);color:var(--fg)}
.filter output{color:var(--muted);font-size:.9rem}
.codes{list-style:none;margin:0;padding:0}
.codes li{display:grid;grid-template-columns:4rem minmax(0,1fr);gap:.1rem .75rem;padding:.55rem 0;border-top:1px solid var(--line)}
.codes li:first-child{border-top:0}
.codes .num{font-weight:700;font-size:1.05rem}
.codes .title{font-weight:500}
.codes .meta{grid-column:2;display:flex;flex-wrap:wrap;gap:.3rem;font-size:.8rem;color:var(--muted)}
.meta .mono{font-size:.78rem}
@media (min-width:48rem){.codes li{grid-template-columns:3.5rem minmax(0,1fr) minmax(0,1fr);align-items:baseline;padding:.45rem 0}.codes .meta{grid-column:3}}
.chip{border:1px solid var(--line);border-radius:1rem;padding:0 .5rem;white-space:nowrap;max-width:100%}
.chip.mono{white-space:normal;overflow-wrap:anywhere}
.chip.yes{color:var(--ok);border-color:currentColor}
.formats{margin:.5rem 0 0;padding-left:1.25rem}.formats li{margin:.3rem 0}`;

/**
 * The stylesheet of the box in an operator's page (docs/errors.md: it "brings its own isolated styles and renders
 * the same inside any page"), inside the box's declarative shadow root (render-html.ts `renderHtmlBox`). The
 * page's selectors cannot reach into a shadow tree; what still crosses is the host element itself (`*`,
 * `:not(:defined)`, its pseudo-elements) and inheritance. `:host` closes both: `all: initial !important` resets
 * every inherited and host property, and an `!important` declaration of the inner (shadow) context wins over the
 * outer page's, `!important` or not (CSS Cascade 5 §6.2 "Context"). `direction` is outside `all`, so it is set.
 * Lengths are in px, not rem: a rem is the *page's* root font size (`html{font-size:62.5%}` is common), which
 * would shrink the box; 1 rem = 16 px is the default page's own root size, so the box measures the same.
 *
 * Colours follow the page, not the reader's preference alone (docs/errors.md "The error box in an operator's
 * page"): the one property let back in after `all` is `color-scheme`, inherited, so the box's used colour scheme
 * is the page's (a `<meta name="color-scheme">`, `color-scheme` on `:root`, `html`, `body` or any ancestor of the
 * box, in any of the page's stylesheets: the browser resolves it, the service scans nothing). The palette is
 * light, then `light-dark()` (CSS Color 5 §5.3) where the browser has it: dark only in a page that declares dark
 * support and in a reader's dark mode. A light-only page (no declaration, the usual case) keeps a light box; a
 * browser without `light-dark()` (before Chromium 123, Firefox 120, Safari 17.5) shows the light box everywhere.
 */
export const BOX_STYLE = `:host{all:initial!important;display:block!important;direction:ltr!important;unicode-bidi:isolate!important;color-scheme:inherit!important;${important(LIGHT)};font:${FONT}!important;color:var(--fg)!important;overflow-wrap:anywhere!important;-webkit-text-size-adjust:100%!important}
@supports (color:light-dark(#000,#fff)){:host{${important(LIGHT_DARK)}}}
:host::before,:host::after{content:none!important;display:none!important}
*{box-sizing:border-box}
[hidden]{display:none!important}
${remToPx(BOX_RULES)}`;

/** `--a:1;--b:2` → `--a:1!important;--b:2!important`. */
function important(declarations: string): string {
  return declarations
    .split(";")
    .map((d) => `${d}!important`)
    .join(";");
}

/** `1.25rem` → `20px` (the default root font size, 16 px), so the page's root font size cannot scale the box. */
function remToPx(css: string): string {
  return css.replace(/(\d*\.?\d+)rem\b/g, (_, n: string) => `${Math.round(Number(n) * 16 * 1000) / 1000}px`);
}

/**
 * The only script: reveals the ray ID's copy button when the Clipboard API exists (the ID itself is plain text,
 * selectable in one click), and the reference's text filter, which hides non-matching codes in the page
 * without any request. Written for every current browser; no event-handler attributes. The words it writes come
 * from the page (`data-copied`, `data-select`, `data-count`), so one script, and one CSP hash, serves every
 * language (docs/languages.md).
 */
export const PAGE_SCRIPT = `(function(){
for(var b of document.querySelectorAll("button[data-copy]")){(function(b){
var t=document.getElementById(b.getAttribute("data-copy"));
if(!t||!navigator.clipboard||!window.isSecureContext)return;
b.hidden=false;
b.addEventListener("click",function(){navigator.clipboard.writeText(t.textContent.trim()).then(function(){b.textContent=b.getAttribute("data-copied")||"Copied";},function(){b.textContent=b.getAttribute("data-select")||"Select and copy";getSelection().selectAllChildren(t);});});
})(b);}
var f=document.getElementById("filter");
if(!f)return;
var items=[].slice.call(document.querySelectorAll("[data-code]")),groups=[].slice.call(document.querySelectorAll("[data-group]")),count=document.getElementById("count");
f.closest(".filter").hidden=false;
function run(){var q=f.value.trim().toLowerCase(),n=0;
for(var i of items){var m=q===""||i.textContent.toLowerCase().indexOf(q)!==-1;i.hidden=!m;if(m)n++;}
for(var g of groups)g.hidden=!g.querySelector("[data-code]:not([hidden])");
count.textContent=(count.getAttribute("data-count")||"{n} of {total} codes").replace("{n}",n).replace("{total}",items.length);}
f.addEventListener("input",run);run();
})();`;

// The constant parts of every document, built once per isolate: the head after the title (with the ~6 KB
// stylesheet) and the script at the end.
const HEAD_START = (language: string): string =>
  `<!DOCTYPE html>\n<html lang="${language}">\n<head>\n<meta charset="utf-8">\n` +
  '<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta name="robots" content="noindex">\n';
const HEAD_END = raw(`\n<style>${PAGE_STYLE}</style>\n</head>\n<body>\n`);
const BODY_END = raw(`\n<script>${PAGE_SCRIPT}</script>\n</body>\n</html>\n`);

/** How a document differs from the plain one: a second stylesheet, and its language. */
export interface PageOptions {
  /** A second stylesheet after the page's (an overlay's branding), which the page's CSP then allows by its hash too. */
  readonly style?: string | undefined;
  /** The `lang` of the document (docs/languages.md): a tag of `LANGUAGES` (language.ts), `en` when absent. */
  readonly language?: string;
}

/** A complete document around `body`, in the language of its texts (`lang`, docs/languages.md). */
export function htmlPage(title: string, body: Html, options: PageOptions = {}): string {
  const { style, language = "en" } = options;
  const head =
    style === undefined ? HEAD_END : raw(`\n<style>${PAGE_STYLE}</style>\n<style>${style}</style>\n</head>\n<body>\n`);
  return HEAD_START(language) + html`<title>${title}</title>${head}${body}${BODY_END}`.toString();
}
