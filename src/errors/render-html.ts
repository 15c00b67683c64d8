/**
 * HTML of a generated error (docs/errors.md): what happened, where it broke, what you can do and whether
 * retrying helps, then the ray ID (copyable), time, website and status. Every value goes through the `html`
 * template (escaped). `renderHtmlBox` is the error box alone: the full page wraps it, and a zone's custom error
 * page embeds it in place of `::EDGE_ERROR_500S_BOX::` / `::EDGE_ERROR_1000S_BOX::` (docs/custom-errors.md step 2).
 * Pure.
 */
import type { ErrorCategory } from "./catalog";
import type { ErrorFields, ErrorLink } from "./fields";
import { renderGuidance } from "./guidance";
import { escapeHtml } from "../shared/html-escape";
import { html, raw, type Html } from "./html";
import { occurrenceTemplate, type OccurrenceRenderer } from "./occurrence-template";
import { BOX_STYLE, htmlPage } from "./page";
import { whereItBroke, type Hop, type HopState } from "./where-it-broke";
import type { Language } from "./language";
import { EN_WORDS } from "./languages/en";
import type { Words } from "./languages/words";
import { wordsOf } from "./localize";
import { notRetryableReason, ownerSentence, type WhoActs } from "./wording";

/**
 * Printable ASCII but the quote and the backslash (which JSON escapes) and `<`, `>`, `&` (which the island
 * escapes): written as is by `islandText`. Defined before `htmlBody`, whose template calls `islandText` at once.
 */
const ISLAND_VERBATIM = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;

/**
 * The page spliced from a per-(code, retry, footer) template with the per-occurrence values escaped
 * (occurrence-template.ts); the same bytes as `renderPage`, which stays the one definition of the page (~70 µs of
 * workerd CPU per error when the template tree ran per error).
 */
export const htmlBody = occurrenceTemplate((f) => renderPage(f), escapeHtml, islandText);
export const renderHtml: (fields: ErrorFields) => string = htmlBody.text;

/** The page's renderer in each language (docs/languages.md), made on first use: its templates are its own. */
const htmlBodies = new Map<Language, OccurrenceRenderer>([["en", htmlBody]]);

/** `htmlBody` in `language`. */
export function htmlBodyIn(language: Language): OccurrenceRenderer {
  let body = htmlBodies.get(language);
  if (body === undefined) {
    const words = wordsOf(language);
    body = occurrenceTemplate((f) => renderPage(f, undefined, words), escapeHtml, islandText);
    htmlBodies.set(language, body);
  }
  return body;
}

/** The whole page from the template tree (the reference for the cached form; tests compare the two). */
export function renderPage(f: ErrorFields, overlay?: PageOverlay, words: Words = EN_WORDS): string {
  return htmlPage(
    f.title,
    html`<main>
${overlay?.brand}${errorBox(f, { ids: true, links: overlay?.links, words })}
<footer><p>${f.footer} <a href="${f.type}">${words.aboutError(f.error_code)}</a></p></footer>
</main>
${raw(`<script type="application/problem+json" id="edge-error">${islandJson(f)}</script>`)}`,
    { style: overlay?.style, language: words.language },
  );
}

/**
 * What a custom error rule's overlay adds to the page (docs/custom-errors.md "Overlay"): the fields it
 * replaced are already in `f`; this is the rest, prepared once per rule (overlay.ts).
 */
export interface PageOverlay {
  /** The "More help" links, in a section after the guidance. */
  readonly links?: readonly ErrorLink[];
  /** The brand bar above the error box (escaped markup made by `renderBrand`). */
  readonly brand?: Html;
  /** The brand bar's stylesheet (the page's CSP allows it by hash). */
  readonly style?: string;
}

/** The brand bar: the logo (an inline `data:` image) and the name, as text. */
export function renderBrand(name: string | undefined, logo: string | undefined): Html {
  // With a name the logo is decorative (the name says it); alone it is the brand's only sign.
  const img = logo === undefined ? "" : html`<img src="${logo}" alt="${name === undefined ? "Logo" : ""}">`;
  return html`<div class="brand">${img}${name === undefined ? "" : html`<span>${name}</span>`}</div>
`;
}

/** The brand bar's rules; `accent` is a validated `#rrggbb`. */
export function brandStyle(accent: string | undefined): string {
  return (
    ".brand{display:flex;align-items:center;gap:.75rem;margin:0 0 .25rem;padding:0 0 .6rem;" +
    `border-bottom:4px solid ${accent ?? "var(--line)"};font-weight:700;font-size:1.15rem}` +
    ".brand img{height:2.5rem;width:auto;max-width:12rem}"
  );
}

/**
 * The machine-readable island (docs/errors.md): the 17 fields as the JSON body has them, in a data block
 * (`<script>` of a non-JavaScript type: HTML Living Standard §4.12.1.1 "data block", never executed, so the page's
 * CSP `script-src` hash does not need to cover it). The content of a `<script>` is raw text, not HTML: `<`, `>`
 * and `&` are written as JSON escapes (`\u003c`…), so no value can close the element (`</script`) or open a
 * comment (`<!--`); the text still parses with JSON.parse to exactly the JSON body's value. U+2028/2029 are escaped
 * too (valid in JSON, but not in older JavaScript string literals a client might embed them in).
 */
export function islandJson(f: ErrorFields): string {
  return escapeIsland(JSON.stringify(f));
}

/** One string value as `islandJson` writes it inside its quotes: the occurrence template's second encoding. */
function islandText(value: string): string {
  // A slot value (URL, ray, timestamp, zone) nearly always needs no escape: one test, not the stringifier.
  return ISLAND_VERBATIM.test(value) ? value : escapeIsland(JSON.stringify(value).slice(1, -1));
}

const ISLAND_ESCAPES: Readonly<Record<string, string>> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

function escapeIsland(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => ISLAND_ESCAPES[c] ?? c);
}

/**
 * The error box for an operator's page, in place of `::EDGE_ERROR_500S_BOX::` / `::EDGE_ERROR_1000S_BOX::`
 * (docs/custom-errors.md step 2). docs/errors.md: it "brings its own isolated styles and renders the same inside any page".
 * It is a declarative shadow root (HTML Living Standard §4.12.3 `shadowrootmode`; Chromium 111+, Safari 16.4+,
 * Firefox 123+) holding its own stylesheet (`BOX_STYLE`, page.ts) and the very markup of the default page's box:
 * the operator's selectors cannot reach inside, and `:host` stops what crosses (inheritance, rules on the host).
 * Its ids (`ray-id`, `what-happened`…) are scoped to the shadow tree, so they never clash with the page's.
 *
 * A client without declarative shadow DOM keeps the `<template>` inert and shows the host's light-DOM children
 * instead: the same box without ids or the (script-only) Copy button, styled by the page, its icons 24 px by their
 * own attributes. A supporting browser renders only the shadow tree (it has no `<slot>`), so nothing shows twice,
 * and the fallback is not in the accessibility tree. Every value is escaped by the `html` template; the style is a
 * constant, so a page's CSP can allow it by its hash (`boxStyleHash`, docs/custom-errors.md).
 */
export function renderHtmlBox(f: ErrorFields, words: Words = EN_WORDS): string {
  // `lang` on the host: the operator's page may be in another language than the box (docs/languages.md).
  return html`<edge-error-box lang="${words.language}"><template shadowrootmode="open">${BOX_STYLE_ELEMENT}${errorBox(f, { ids: true, words })}</template>${errorBox(f, { ids: false, words })}</edge-error-box>`.toString();
}

/**
 * The largest box `renderHtmlBox` makes, in UTF-8 bytes (docs/custom-errors.md: "a stored page never renders past a
 * documented size"; docs/custom-errors.md). The catalog's texts are constants; what varies is the zone (a hostname,
 * at most 253 bytes, each `&` or quote escaped at most ×6) and Retry-After's digits. Tested with every code and the
 * longest zone (test/workers/edge/custom-errors/box-bound.test.ts).
 */
export const MAX_BOX_BYTES = 16_384;

const BOX_STYLE_ELEMENT = raw(`<style>${BOX_STYLE}</style>`);

/** How the box is drawn: `ids` false for the fallback copy in an operator's page, the overlay's links, the words. */
interface BoxOptions {
  readonly ids: boolean;
  readonly links?: readonly ErrorLink[] | undefined;
  readonly words: Words;
}

/**
 * The error box: the page minus document shell and footer. Contains the page's only `h1`. `ids` = false for the
 * fallback copy in an operator's page (renderHtmlBox): ids there would live in the page's own id space.
 */
function errorBox(f: ErrorFields, { ids, links, words: w }: BoxOptions): Html {
  // The copy button's later words ride on the button: the page's one script (and its CSP hash) is the same in
  // every language (page.ts PAGE_SCRIPT).
  const copy = html`<button type="button" data-copy="ray-id" data-copied="${w.copied}" data-select="${w.selectAndCopy}" hidden>${w.copy}</button>`;
  return html`<div class="edge-error-box">
<header class="card">
<p class="eyebrow">${w.eyebrow(f.error_code, f.status)}</p>
<h1>${f.title}</h1>
${renderStrip(f.error_category, f.zone, w)}
</header>
<section class="card"${ids && raw(' aria-labelledby="what-happened"')}>
<h2${ids && raw(' id="what-happened"')}>${w.whatHappened}</h2>
<p>${f.detail}</p>
<p>${ownerSentence(f, w)}</p>
</section>
<section class="card guidance"${ids && raw(' aria-labelledby="what-to-do"')}>
<h2${ids && raw(' id="what-to-do"')}>${w.whatYouCanDo}</h2>
${renderGuidance(f.what_you_should_do)}
${retryNote(f, f.retry_after, w)}
</section>
${links && moreHelp(links, w)}<section class="card"${ids && raw(' aria-labelledby="details"')}>
<h2${ids && raw(' id="details"')}>${w.details}</h2>
<dl>
<dt>${w.rayId}</dt>${ids ? raw('<dd class="ray"><code id="ray-id" class="mono">') : raw('<dd class="ray"><code class="mono">')}${f.ray_id}</code>${ids && copy}</dd>
<dt>${w.timeUtc}</dt><dd class="mono">${f.timestamp}</dd>
<dt>${w.website}</dt><dd>${f.zone}</dd>
<dt>${w.httpStatus}</dt><dd class="mono">${f.status}</dd>
<dt>${w.errorName}</dt><dd class="mono">${f.error_name}</dd>
<dt>${w.category}</dt><dd class="mono">${f.error_category}</dd>
</dl>
</section>
</div>`;
}

/** An overlay's links: each `href` an http(s) URL validated when the rule was written, escaped here. */
function moreHelp(links: readonly ErrorLink[], words: Words): Html {
  return html`<section class="card" aria-labelledby="more-help">
<h2 id="more-help">${words.moreHelp}</h2>
<ul class="links">${links.map((l) => html`<li><a href="${l.href}">${l.title}</a></li>`)}</ul>
</section>
`;
}

/**
 * Whether retrying helps and when (docs/errors.md "The HTML page"), the same number as `retry_after` and `Retry-After`; when it does
 * not, why, in words that agree with who has to act (wording.ts).
 */
function retryNote(f: WhoActs, retryAfter: number | undefined, w: Words): Html {
  return retryAfter === undefined
    ? html`<p class="retry no">${ICONS.error}<span><strong>${w.notRetryableLead}</strong>${notRetryableReason(f, w)}</span></p>`
    : html`<p class="retry yes">${ICONS.working}<span><strong>${w.retryHelpsLead}</strong>${w.retryHelpsWait(w.seconds(retryAfter))}</span></p>`;
}

/** The "where it broke" strip: three hops, each with an icon and its state as text (not colour alone). */
export function renderStrip(category: ErrorCategory, zone: string | null, words: Words = EN_WORDS): Html {
  // The spaces between a hop's spans are not rendered by the flex layout; they separate the words where no
  // stylesheet applies (the box's fallback copy) and in the hop's text for assistive technology.
  const parts = stripParts(category, words);
  return html`${parts.before}${zone ?? words.originServer}${parts.after}`;
}

interface StripParts {
  readonly before: Html;
  readonly after: Html;
}

// The strip of a category is constant but for the zone: its two halves are built once per category, language and
// isolate (13 categories × the languages at most), which makes the strip a concatenation per error instead of a
// dozen templates.
const stripCache = new Map<Language, Map<ErrorCategory, StripParts>>();

function stripParts(category: ErrorCategory, w: Words): StripParts {
  let byCategory = stripCache.get(w.language);
  if (byCategory === undefined) stripCache.set(w.language, (byCategory = new Map<ErrorCategory, StripParts>()));
  const known = byCategory.get(category);
  if (known !== undefined) return known;
  const [you, edge, website] = whereItBroke(category);
  const names: Readonly<Record<Hop["kind"], string>> = { you: w.hopYou, edge: w.hopEdge, website: w.hopWebsite };
  const states: Readonly<Record<HopState, string>> = {
    working: w.stateWorking,
    error: w.stateError,
    blocked: w.stateBlocked,
    "not-reached": w.stateNotReached,
  };
  const hop = (h: Hop, sub: string): Html =>
    html`<li class="hop ${h.state}">${ICONS[h.state]}<span class="name">${names[h.kind]}</span> <span class="sub">${sub}</span> <span class="state">${states[h.state]}</span></li>`;
  const parts = {
    before: html`<ol class="path" aria-label="${w.whereItBroke}">${hop(you, w.subYou)}${hop(edge, w.subEdge)}<li class="hop ${website.state}">${ICONS[website.state]}<span class="name">${names.website}</span> <span class="sub">`,
    after: html`</span> <span class="state">${states[website.state]}</span></li></ol>`,
  };
  byCategory.set(category, parts);
  return parts;
}

/**
 * Inline SVG icons, constants (trusted): no image is fetched (docs/errors.md). Decorative: the state is text. Their
 * `width`/`height` attributes (presentation hints, below any stylesheet rule) keep them 24 px where no stylesheet
 * sizes them: the box's fallback copy in a client without declarative shadow DOM.
 */
const ICONS: Readonly<Record<HopState, Html>> = {
  working: icon('<path d="M7.5 12.5l3 3 6-6.5"/>'),
  error: icon('<path d="M8.5 8.5l7 7M15.5 8.5l-7 7"/>'),
  blocked: icon('<path d="M7 12h10"/>'),
  "not-reached": icon('<path d="M8 12h.01M12 12h.01M16 12h.01"/>'),
};

function icon(glyph: string): Html {
  return raw(
    `<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><circle cx="12" cy="12" r="10"/>${glyph}</svg>`,
  );
}
