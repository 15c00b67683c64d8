/**
 * The catalog's reference (docs/errors.md): `{prefix}/errors` lists every code, `{prefix}/errors/{code}` documents
 * one code and is the target of the errors' `type` URI. Negotiated: JSON, Markdown or HTML. Pure.
 */
import { CATALOG, ERROR_CATEGORIES, type CatalogEntry, type ErrorCategory } from "./catalog";
import { wireTitle } from "./fields";
import type { ErrorFormatChoice } from "./format";
import { renderGuidance } from "./guidance";
import { html, type Html } from "./html";
import { htmlPage } from "./page";
import { renderStrip } from "./render-html";
import { NOT_RETRYABLE_LEAD, notRetryableReason, ownerSentence, seconds } from "./wording";
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

export function referenceEntry(entry: CatalogEntry, type: string): ReferenceEntry {
  const head = {
    type,
    error_code: entry.code,
    title: wireTitle(entry),
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

/** `{prefix}/errors`: every code. `typeOf` gives each code's reference URI. */
export function renderReferenceList(typeOf: (code: number) => string, choice: ErrorFormatChoice): string {
  const entries = CATALOG.map((entry) => referenceEntry(entry, typeOf(entry.code)));
  switch (choice.format) {
    case "json":
    case "problem+json":
      return JSON.stringify(entries);
    case "markdown":
      return (
        "# Error codes\n\n| code | status | title | error_name | error_category | retry_after | owner_action_required |\n" +
        "|---:|---:|---|---|---|---:|---|\n" +
        entries
          .map(
            (e) =>
              `| [${e.error_code}](${e.type}) | ${e.status} | ${tableCell(e.title)} | ${e.error_name} | ${e.error_category} | ` +
              `${e.retry_after ?? "no retry"} | ${e.owner_action_required ? "yes" : "no"} |`,
          )
          .join("\n") +
        "\n"
      );
    case "html":
      return htmlPage("Error codes", referenceListHtml(entries));
  }
}

/** `{prefix}/errors/{code}`: one code. `listHref` is the list's path (`{prefix}/errors`), linked from the HTML page. */
export function renderReferenceEntry(e: ReferenceEntry, choice: ErrorFormatChoice, listHref = "./"): string {
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
        `# ${e.title}\n\n## What Happened\n\n${e.detail}\n\n## What You Should Do\n\n${e.what_you_should_do}\n`
      );
    case "html":
      return htmlPage(e.title, referenceEntryHtml(e, listHref));
  }
}

/** A Markdown table cell: `|` escaped, line breaks flattened (GFM tables are one line per row). */
function tableCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

/** Headings of the reference's groups: the class of a code, then its category (docs/errors.md). */
const CLASSES = [
  {
    name: "5xx errors",
    about: "Server errors the edge generates when it cannot get an answer from the website.",
    test: (code: number) => code < 1000,
  },
  {
    name: "1xxx errors",
    about: "Edge errors: the request was refused or could not be processed by the edge.",
    test: (code: number) => code >= 1000,
  },
] as const;

const CATEGORY_NAMES: Readonly<Record<ErrorCategory, string>> = {
  origin: "Origin: the website's server",
  edge: "Edge: the edge itself",
  ssl: "SSL: the website's certificate",
  access_denied: "Access denied",
  rate_limit: "Rate limiting",
  dns: "DNS",
  config: "Configuration of the website",
  tls: "TLS: the client's connection",
  legal: "Legal",
  worker: "Workers: the website's code",
  rewrite: "Rewrite rules",
  snippet: "Snippets",
  unsupported: "Unsupported",
};

/**
 * The list as grouped cards, not a table (a 48rem table overflowed its column): class, then category,
 * one line per code that wraps at any width. The filter field filters in the page (the page's script) and stays
 * hidden without scripts, when the full list is simply shown.
 */
function referenceListHtml(entries: readonly ReferenceEntry[]): Html {
  const groups = CLASSES.map((cls) => {
    const inClass = entries.filter((e) => cls.test(e.error_code));
    const categories = ERROR_CATEGORIES.map((category) => ({
      category,
      codes: inClass.filter((e) => e.error_category === category),
    })).filter((g) => g.codes.length > 0);
    return html`<section class="card" data-group>
<h2>${cls.name}</h2>
<p>${cls.about}</p>
${categories.map(
  (g) => html`<div data-group>
<h3>${CATEGORY_NAMES[g.category]}</h3>
<ul class="codes">
${g.codes.map(codeLine)}
</ul>
</div>
`,
)}</section>
`;
  });
  return html`<main>
<p class="eyebrow neutral">Reference</p>
<h1>Error codes</h1>
<p class="lead">Every error the edge can generate, grouped by class and category. Each code links to its page: status, retry behaviour, what happened and what to do.</p>
<div class="filter" hidden><label for="filter">Filter</label><input id="filter" type="search" autocomplete="off" spellcheck="false" placeholder="Code, title, name or category"><output id="count" for="filter" aria-live="polite"></output></div>
${groups}</main>`;
}

function codeLine(e: ReferenceEntry): Html {
  return html`<li data-code="${e.error_code}"><a class="num" href="${e.type}">${e.error_code}</a><span class="title">${e.title.replace(/^Error \d+: /, "")}</span><span class="meta"><span class="chip">HTTP ${e.status}</span><span class="chip mono">${e.error_name}</span>${
    e.retry_after === undefined
      ? html`<span class="chip">no retry</span>`
      : html`<span class="chip yes">retry after ${e.retry_after} s</span>`
  }${e.owner_action_required && html`<span class="chip">owner action</span>`}</span></li>
`;
}

/** One code's page: status, retry behaviour, what happened, what to do, and the formats it is served in. */
function referenceEntryHtml(e: ReferenceEntry, listHref: string): Html {
  return html`<main>
<p class="crumbs"><a href="${listHref}">All error codes</a></p>
<header class="card">
<p class="eyebrow">Error ${e.error_code} · HTTP ${e.status}</p>
<h1>${e.title}</h1>
${renderStrip(e.error_category, null)}
</header>
<section class="card" aria-labelledby="glance">
<h2 id="glance">At a glance</h2>
<dl>
<dt>HTTP status</dt><dd class="mono">${e.status}</dd>
<dt>Error name</dt><dd class="mono">${e.error_name}</dd>
<dt>Category</dt><dd class="mono">${e.error_category}</dd>
<dt>Retry</dt><dd>${
    e.retry_after === undefined
      ? `Not retryable. ${NOT_RETRYABLE_LEAD}${notRetryableReason(e)} No Retry-After header.`
      : `Retryable: wait ${seconds(e.retry_after)} (Retry-After: ${e.retry_after}; a rate-limiting rule may set its own value).`
  }</dd>
<dt>Owner action</dt><dd>${e.owner_action_required ? "Required." : "Not required."} ${ownerSentence(e)}</dd>
</dl>
</section>
<section class="card" aria-labelledby="what-happened">
<h2 id="what-happened">What happened</h2>
<p>${e.detail}</p>
</section>
<section class="card guidance" aria-labelledby="what-to-do">
<h2 id="what-to-do">What to do</h2>
${renderGuidance(e.what_you_should_do)}
</section>
<section class="card" aria-labelledby="formats">
<h2 id="formats">Formats</h2>
<p>The error is served in the format the client's <code class="mono">Accept</code> header prefers:</p>
<ul class="formats">
<li>HTML (<code class="mono">text/html</code>): browsers and clients without a preference.</li>
<li>JSON (<code class="mono">application/json</code> or <code class="mono">application/problem+json</code>, RFC 9457): the same 17 fields.</li>
<li>Markdown (<code class="mono">text/markdown</code>): YAML front matter, then what happened and what to do.</li>
</ul>
</section>
</main>`;
}
