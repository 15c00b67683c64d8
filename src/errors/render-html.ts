/**
 * HTML of a generated error (contract §1.3): code, title, what happened, what you can do and whether retrying helps,
 * where it broke, ray ID, timestamp, zone. Built with the escaping `html` template (html.ts): every interpolated
 * value is escaped unless it is markup this module made. `renderHtmlBox` is the error box alone, which a zone's
 * custom error page embeds in place of `::EDGE_ERROR_500S_BOX::` / `::EDGE_ERROR_1000S_BOX::` (contract §2.1).
 */
import type { ErrorCategory } from "./catalog";
import type { ErrorFields } from "./fields";
import { html, htmlPage, markdownBlocks, type SafeHtml } from "./html";

export function renderHtml(f: ErrorFields): string {
  return htmlPage(
    f.title,
    html`<main>
${renderHtmlBox(f)}
<footer>${f.footer}</footer>
</main>`,
  );
}

/** The error box: the page minus document shell and footer. Contains the page's only `h1`. */
export function renderHtmlBox(f: ErrorFields): SafeHtml {
  const retry =
    f.retry_after === undefined
      ? html`<span class="retry-no">No</span>: retrying will not help until the cause is fixed.`
      : html`<span class="retry-yes">Yes</span>, after ${f.retry_after} seconds.`;
  return html`<div class="edge-error-box">
<p class="code">Error ${f.error_code} · ${f.error_category}</p>
<h1>${f.title}</h1>
${whereItBroke(f.error_category)}
<section>
<h2>What happened</h2>
${markdownBlocks(f.detail)}
</section>
<section>
<h2>What you can do</h2>
${markdownBlocks(f.what_you_should_do)}
<p>Retrying helps: ${retry}</p>
</section>
<section>
<dl>
<dt>Ray ID</dt><dd>${f.ray_id}</dd>
<dt>Time (UTC)</dt><dd>${f.timestamp}</dd>
<dt>Website</dt><dd>${f.zone}</dd>
<dt>HTTP status</dt><dd>${f.status}</dd>
<dt>Error name</dt><dd>${f.error_name}</dd>
</dl>
</section>
</div>`;
}

/** The three hops a visitor's request crosses. */
type Hop = "you" | "edge" | "website";

/**
 * Which hop failed, by category (issue 11: "where it broke" is the first thing a visitor looks for). The origin's
 * and its certificate's or DNS name's faults are the website's; the service's own faults are the edge's; a request
 * the zone's rules refused (blocked, rate limited, unsupported, legal) stops at the edge because of the request.
 */
const FAILED_HOP: Readonly<Record<ErrorCategory, Hop>> = {
  origin: "website",
  ssl: "website",
  dns: "website",
  config: "website",
  edge: "edge",
  worker: "edge",
  rewrite: "edge",
  snippet: "edge",
  access_denied: "you",
  rate_limit: "you",
  tls: "you",
  legal: "you",
  unsupported: "you",
};

const HOP_LABELS: Readonly<Record<Hop, string>> = { you: "You", edge: "The edge", website: "The website" };

function whereItBroke(category: ErrorCategory): SafeHtml {
  const failed = FAILED_HOP[category] ?? "edge";
  const hops = (["you", "edge", "website"] as const).map((hop) => {
    const state = hop === failed ? "failed" : "working";
    const label = hop === failed ? (hop === "you" ? "Request refused" : "Not working") : "Working";
    return html`<li class="hop ${state}"><span class="hop-name">${HOP_LABELS[hop]}</span> <span class="hop-state">${label}</span></li>`;
  });
  return html`<ol class="path" aria-label="Where it broke">${hops}</ol>`;
}
