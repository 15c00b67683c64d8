/**
 * The catalog's reference (docs/errors.md): `{prefix}/errors` lists every code, `{prefix}/errors/{code}` documents
 * one code and is the target of the errors' `type` URI. Negotiated: JSON, Markdown or HTML. Pure.
 */
import { CATALOG, ERROR_CATEGORIES, type CatalogEntry, type ErrorCategory } from "./catalog";
import { wireTitle } from "./fields";
import type { ErrorFormatChoice } from "./format";
import { renderGuidance } from "./guidance";
import { html, type Html } from "./html";
import type { Language } from "./language";
import { EN_WORDS } from "./languages/en";
import type { Words } from "./languages/words";
import { localizedEntry, wordsOf } from "./localize";
import { htmlPage } from "./page";
import { renderStrip } from "./render-html";
import { notRetryableReason, ownerSentence } from "./wording";
import { yamlScalar } from "./yaml";

/** What the reference says about one code: the catalog fields under their wire names, plus its `type`. */
export interface ReferenceEntry {
  readonly type: string;
  readonly error_code: number;
  readonly title: string;
  readonly status: number;
  readonly error_name: string;
  readonly error_category: ErrorCategory;
  readonly retryable: boolean;
  readonly retry_after?: number;
  readonly owner_action_required: boolean;
  readonly detail: string;
  readonly what_you_should_do: string;
}

/** What the reference says about `catalogEntry`, its texts in `language` (docs/languages.md; English by default). */
export function referenceEntry(catalogEntry: CatalogEntry, type: string, language: Language = "en"): ReferenceEntry {
  const entry = language === "en" ? catalogEntry : localizedEntry(catalogEntry, language, null);
  const head = {
    type,
    error_code: entry.code,
    title: wireTitle(entry, wordsOf(language)),
    status: entry.status,
    error_name: entry.errorName,
    error_category: entry.category,
  };
  const tail = {
    owner_action_required: entry.ownerActionRequired,
    detail: entry.detail,
    what_you_should_do: entry.whatYouShouldDo,
  };
  return entry.retryAfter === null
    ? { ...head, retryable: false, ...tail }
    : { ...head, retryable: true, retry_after: entry.retryAfter, ...tail };
}

/**
 * `{prefix}/errors`: every code. `typeOf` gives each code's reference URI. In `language` (docs/languages.md): the
 * texts and words; the table's column names are the field names, which no language changes.
 */
export function renderReferenceList(
  typeOf: (code: number) => string,
  choice: ErrorFormatChoice,
  language: Language = "en",
): string {
  const w = wordsOf(language);
  const entries = CATALOG.map((entry) => referenceEntry(entry, typeOf(entry.code), language));
  switch (choice.format) {
    case "json":
    case "problem+json":
      return JSON.stringify(entries);
    case "markdown":
      return (
        `# ${w.ref.errorCodes}\n\n| code | status | title | error_name | error_category | retry_after | owner_action_required |\n` +
        "|---:|---:|---|---|---|---:|---|\n" +
        entries
          .map(
            (e) =>
              `| [${e.error_code}](${e.type}) | ${e.status} | ${tableCell(e.title)} | ${e.error_name} | ${e.error_category} | ` +
              `${e.retry_after ?? w.ref.noRetry} | ${e.owner_action_required ? w.ref.yes : w.ref.no} |`,
          )
          .join("\n") +
        "\n"
      );
    case "html":
      return htmlPage(w.ref.errorCodes, referenceListHtml(entries, w), { language });
  }
}

/**
 * `{prefix}/errors/{code}`: one code. `listHref` is the list's path (`{prefix}/errors`), linked from the HTML page;
 * `words` the language `e` was made in (referenceEntry).
 */
export function renderReferenceEntry(
  e: ReferenceEntry,
  choice: ErrorFormatChoice,
  listHref = "./",
  words: Words = EN_WORDS,
): string {
  const w = words;
  switch (choice.format) {
    case "json":
    case "problem+json":
      return JSON.stringify(e);
    case "markdown":
      return (
        "---\n" +
        `error_code: ${e.error_code}\nerror_name: ${yamlScalar(e.error_name)}\nerror_category: ${yamlScalar(e.error_category)}\n` +
        `status: ${e.status}\nretryable: ${e.retryable}\n` +
        (e.retry_after === undefined ? "" : `retry_after: ${e.retry_after}\n`) +
        `owner_action_required: ${e.owner_action_required}\n---\n\n` +
        `# ${e.title}\n\n## ${w.mdWhatHappened}\n\n${e.detail}\n\n## ${w.mdWhatYouShouldDo}\n\n${e.what_you_should_do}\n`
      );
    case "html":
      return htmlPage(e.title, referenceEntryHtml(e, listHref, w), { language: w.language });
  }
}

/** A Markdown table cell: `|` escaped, line breaks flattened (GFM tables are one line per row). */
function tableCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

/** The reference's groups: the class of a code, then its category (docs/errors.md). */
const CLASSES = [
  { name: (w: Words) => w.ref.class5xx, about: (w: Words) => w.ref.class5xxAbout, test: (code: number) => code < 1000 },
  {
    name: (w: Words) => w.ref.class1xxx,
    about: (w: Words) => w.ref.class1xxxAbout,
    test: (code: number) => code >= 1000,
  },
] as const;

/**
 * The list as grouped cards, not a table (a 48rem table overflowed its column): class, then category,
 * one line per code that wraps at any width. The filter field filters in the page (the page's script) and stays
 * hidden without scripts, when the full list is simply shown.
 */
function referenceListHtml(entries: readonly ReferenceEntry[], w: Words): Html {
  const groups = CLASSES.map((cls) => {
    const inClass = entries.filter((e) => cls.test(e.error_code));
    const categories = ERROR_CATEGORIES.map((category) => ({
      category,
      codes: inClass.filter((e) => e.error_category === category),
    })).filter((g) => g.codes.length > 0);
    return html`<section class="card" data-group>
<h2>${cls.name(w)}</h2>
<p>${cls.about(w)}</p>
${categories.map(
  (g) => html`<div data-group>
<h3>${w.ref.categories[g.category]}</h3>
<ul class="codes">
${g.codes.map((e) => codeLine(e, w))}
</ul>
</div>
`,
)}</section>
`;
  });
  return html`<main>
<p class="eyebrow neutral">${w.ref.eyebrow}</p>
<h1>${w.ref.errorCodes}</h1>
<p class="lead">${w.ref.lead}</p>
<div class="filter" hidden><label for="filter">${w.ref.filter}</label><input id="filter" type="search" autocomplete="off" spellcheck="false" placeholder="${w.ref.filterPlaceholder}"><output id="count" for="filter" aria-live="polite" data-count="${w.ref.filterCount}"></output></div>
${groups}</main>`;
}

function codeLine(e: ReferenceEntry, w: Words): Html {
  // The bare title: the wire title less the prefix its language's `errorTitle` puts before it.
  const bare = e.title.slice(w.errorTitle(e.error_code, "").length);
  return html`<li data-code="${e.error_code}"><a class="num" href="${e.type}">${e.error_code}</a><span class="title">${bare}</span><span class="meta"><span class="chip">HTTP ${e.status}</span><span class="chip mono">${e.error_name}</span>${
    e.retry_after === undefined
      ? html`<span class="chip">${w.ref.noRetry}</span>`
      : html`<span class="chip yes">${w.ref.retryAfterChip(e.retry_after)}</span>`
  }${e.owner_action_required && html`<span class="chip">${w.ref.ownerAction}</span>`}</span></li>
`;
}

/** One code's page: status, retry behaviour, what happened, what to do, and the formats it is served in. */
function referenceEntryHtml(e: ReferenceEntry, listHref: string, w: Words): Html {
  const [before, after] = w.ref.formatsLead;
  const [or, jsonIs] = w.ref.formatJson;
  return html`<main>
<p class="crumbs"><a href="${listHref}">${w.ref.allCodes}</a></p>
<header class="card">
<p class="eyebrow">${w.eyebrow(e.error_code, e.status)}</p>
<h1>${e.title}</h1>
${renderStrip(e.error_category, null, w)}
</header>
<section class="card" aria-labelledby="glance">
<h2 id="glance">${w.ref.atAGlance}</h2>
<dl>
<dt>${w.httpStatus}</dt><dd class="mono">${e.status}</dd>
<dt>${w.errorName}</dt><dd class="mono">${e.error_name}</dd>
<dt>${w.category}</dt><dd class="mono">${e.error_category}</dd>
<dt>${w.ref.retry}</dt><dd>${
    e.retry_after === undefined
      ? w.ref.notRetryable(w.notRetryableLead, notRetryableReason(e, w))
      : w.ref.retryable(w.seconds(e.retry_after), e.retry_after)
  }</dd>
<dt>${w.ref.ownerActionLabel}</dt><dd>${e.owner_action_required ? w.ref.required : w.ref.notRequired} ${ownerSentence(e, w)}</dd>
</dl>
</section>
<section class="card" aria-labelledby="what-happened">
<h2 id="what-happened">${w.whatHappened}</h2>
<p>${e.detail}</p>
</section>
<section class="card guidance" aria-labelledby="what-to-do">
<h2 id="what-to-do">${w.ref.whatToDo}</h2>
${renderGuidance(e.what_you_should_do)}
</section>
<section class="card" aria-labelledby="formats">
<h2 id="formats">${w.ref.formats}</h2>
<p>${before}<code class="mono">Accept</code>${after}</p>
<ul class="formats">
<li>HTML (<code class="mono">text/html</code>): ${w.ref.formatHtml}</li>
<li>JSON (<code class="mono">application/json</code> ${or} <code class="mono">application/problem+json</code>, RFC 9457): ${jsonIs}</li>
<li>Markdown (<code class="mono">text/markdown</code>): ${w.ref.formatMarkdown}</li>
</ul>
</section>
</main>`;
}
