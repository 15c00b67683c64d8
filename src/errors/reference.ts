/**
 * The catalog's reference (contract §1.6): `{prefix}/errors` lists every code, `{prefix}/errors/{code}` documents
 * one code and is the target of the errors' `type` URI. Negotiated: JSON, Markdown or HTML. Pure.
 */
import { CATALOG, type CatalogEntry } from "./catalog";
import { wireTitle } from "./fields";
import type { ErrorFormatChoice } from "./format";
import { html, htmlPage, markdownBlocks } from "./html";
import { yamlScalar } from "./yaml";

/** What the reference says about one code: the catalog fields under their wire names, plus its `type`. */
export interface ReferenceEntry {
  readonly type: string;
  readonly error_code: number;
  readonly title: string;
  readonly status: number;
  readonly error_name: string;
  readonly error_category: string;
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
      return htmlPage(
        "Error codes",
        html`<main class="wide">
<h1>Error codes</h1>
<div class="table-wrap"><table>
<thead><tr><th>Code</th><th>Status</th><th>Title</th><th>Name</th><th>Category</th><th>Retry after (s)</th><th>Owner action</th></tr></thead>
<tbody>
${entries.map(
  (e) =>
    html`<tr><td><a href="${e.type}">${e.error_code}</a></td><td>${e.status}</td><td>${e.title}</td><td>${e.error_name}</td><td>${e.error_category}</td><td>${e.retry_after ?? "no retry"}</td><td>${e.owner_action_required ? "yes" : "no"}</td></tr>\n`,
)}</tbody>
</table></div>
</main>`,
      );
  }
}

/** `{prefix}/errors/{code}`: one code. */
export function renderReferenceEntry(e: ReferenceEntry, choice: ErrorFormatChoice): string {
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
      return htmlPage(
        e.title,
        html`<main>
<p class="code">Error ${e.error_code} · ${e.error_category}</p>
<h1>${e.title}</h1>
<section>
<h2>What happened</h2>
${markdownBlocks(e.detail)}
</section>
<section>
<h2>What you should do</h2>
${markdownBlocks(e.what_you_should_do)}
</section>
<section>
<dl>
<dt>HTTP status</dt><dd>${e.status}</dd>
<dt>Error name</dt><dd>${e.error_name}</dd>
<dt>Retryable</dt><dd>${e.retry_after === undefined ? "no" : `yes, after ${e.retry_after} s`}</dd>
<dt>Owner action required</dt><dd>${e.owner_action_required ? "yes" : "no"}</dd>
</dl>
</section>
</main>`,
      );
  }
}

/** A Markdown table cell: `|` escaped, line breaks flattened (GFM tables are one line per row). */
function tableCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
