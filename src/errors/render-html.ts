/**
 * HTML body of a generated error (contract §1.3): code, title, detail, what to do, ray ID, timestamp, zone and
 * whether retrying helps, every interpolated value escaped. `renderHtmlBox` is the error box alone, which a zone's
 * custom error page embeds in place of `::EDGE_ERROR_500S_BOX::` / `::EDGE_ERROR_1000S_BOX::` (contract §2.1).
 */
import type { ErrorFields } from "./fields";
import { escapeHtml, htmlPage, markdownEmphasis } from "./html";

export function renderHtml(f: ErrorFields): string {
  return htmlPage(f.title, `<main>\n${renderHtmlBox(f)}\n<footer>${escapeHtml(f.footer)}</footer>\n</main>`);
}

/** The error box: the page minus document shell and footer. Contains the page's only `h1`. */
export function renderHtmlBox(f: ErrorFields): string {
  const retry =
    f.retry_after === undefined
      ? '<span class="retry-no">No</span>: retrying will not help until the cause is fixed.'
      : `<span class="retry-yes">Yes</span>, after ${f.retry_after} seconds.`;
  return (
    `<div class="edge-error-box">\n` +
    `<p class="code">Error ${f.error_code} · ${escapeHtml(f.error_category)}</p>\n` +
    `<h1>${escapeHtml(f.title)}</h1>\n` +
    `<section>\n<h2>What happened</h2>\n<p class="text">${escapeHtml(f.detail)}</p>\n</section>\n` +
    `<section>\n<h2>What you should do</h2>\n<p class="text">${markdownEmphasis(escapeHtml(f.what_you_should_do))}</p>\n` +
    `<p>Retrying helps: ${retry}</p>\n</section>\n` +
    `<section>\n<dl>\n` +
    `<dt>Ray ID</dt><dd>${escapeHtml(f.ray_id)}</dd>\n` +
    `<dt>Time (UTC)</dt><dd>${escapeHtml(f.timestamp)}</dd>\n` +
    `<dt>Website</dt><dd>${escapeHtml(f.zone)}</dd>\n` +
    `<dt>HTTP status</dt><dd>${f.status}</dd>\n` +
    `<dt>Error name</dt><dd>${escapeHtml(f.error_name)}</dd>\n` +
    `</dl>\n</section>\n</div>`
  );
}
