/**
 * `GET /accounts/{account_id}/analytics` on an API host (docs/analytics.md "Errors by tag", "The account page"): a
 * public HTML shell for `GET /accounts/{account_id}/analytics/errors`, built as the zone page (page.ts) is: it holds
 * no data, asks for a token, keeps it in `sessionStorage` under the same name (one token per tab for both pages),
 * and draws the answer with DOM calls only (API values through `textContent`), under the same headers and strict
 * nonce CSP (`tokenPageHeaders`).
 */
import { escapeHtml } from "../../shared/html-escape";
import type { RequestContext } from "../../shared/request-context";
import { API_PAGE_STYLE, CHECK_ICON, PERCENT_CLIENT, TOKEN_CLIENT, tokenPageHeaders } from "../kit/page-style";
import { isAccountId } from "../../state/zone/schema";

/**
 * The page of `/accounts/:account/analytics` (GET or HEAD, routes.ts `analyticsPages`), or null when the path names
 * no account (not 32 lower-case hex: then the API answers as if no page were there).
 */
export function accountAnalyticsPage(rc: RequestContext, params: Readonly<Record<string, string>>): Response | null {
  const { request } = rc;
  const account = params.account ?? "";
  if (!isAccountId(account)) return null;
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const html = renderAccountPage(account, nonce);
  return new Response(request.method === "HEAD" ? null : html, { headers: tokenPageHeaders(nonce) });
}

export function renderAccountPage(account: string, nonce: string): string {
  const a = escapeHtml(account);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Errors by tag</title>
<style nonce="${nonce}">${API_PAGE_STYLE}
${STYLE}</style>
</head>
<body>
<main class="wide" data-account="${a}">
<p class="crumbs"><a href="/">All zones</a></p>
<header class="card">
<p class="eyebrow neutral">Error analytics</p>
<h1>Errors by tag</h1>
<p class="lead">Which zones of account <span class="mono">${a}</span> are failing, grouped by a zone tag such as <code>team</code>.</p>
</header>
<section class="card" aria-labelledby="token-title">
<h2 id="token-title">API token</h2>
<form id="auth" class="stack">
<label for="token">A token with zones:read and tags:read for this account or some of its zones</label>
<div class="inline"><input id="token" type="password" autocomplete="off" spellcheck="false"><button type="submit" class="primary">Use token</button></div>
<p class="hint">It stays in this tab's session storage and is sent only to this API.</p>
</form>
<div id="token-state" class="token-state" hidden>
<p><span class="badge ok">${CHECK_ICON}Token in use</span> <span id="token-name"></span></p>
<button type="button" id="forget" class="big">Forget token</button>
</div>
<p id="token-problem" class="alert" role="alert" hidden></p>
</section>
<section class="card" aria-labelledby="query-title">
<h2 id="query-title">Query</h2>
<form id="query" class="query">
<div class="field"><label for="window">Window</label><select id="window"><option value="3600">1 hour</option><option value="21600">6 hours</option><option value="86400">24 hours</option><option value="604800">7 days</option></select></div>
<div class="field"><label for="key">Group by tag key</label><input id="key" value="team" spellcheck="false" autocomplete="off"></div>
<div class="field grow"><label for="filters">Only zones tagged</label><input id="filters" placeholder="env=prod" spellcheck="false" autocomplete="off" aria-describedby="filters-hint"></div>
<button type="submit" class="primary">Show</button>
</form>
<p class="hint" id="filters-hint">Filters as in the tag listings, separated by spaces, all of them must match: <code>env=prod</code>, <code>team=payments,search</code>, <code>!archived</code>, <code>env!=dev</code>. At most 50 zones per query.</p>
<p id="status" role="status" aria-live="polite">Enter a token to load the account's errors.</p>
<p id="loss" hidden></p>
</section>
<section class="card" aria-labelledby="groups-title"><h2 id="groups-title">Groups</h2>
<table class="groups"><thead><tr><th scope="col">Value</th><th scope="col" class="count">Zones</th><th scope="col">Errors</th><th scope="col" class="requests">Requests</th><th scope="col">Error rate</th></tr></thead><tbody id="groups"></tbody></table></section>
<section class="card" aria-labelledby="zones-title"><h2 id="zones-title">Zones</h2>
<table class="zones"><thead><tr><th scope="col">Zone and value</th><th scope="col">Errors</th><th scope="col" class="requests">Requests</th><th scope="col">Error rate</th></tr></thead><tbody id="zones"></tbody></table>
<p class="hint">A zone opens its own analytics page: its errors over time, top codes and paths, and a Ray lookup.</p></section>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

/** What only this page has: the query row, the tables and the rate bars. */
const STYLE = `.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;overflow-wrap:anywhere}
.query{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem .75rem}
.field{display:flex;flex-direction:column;gap:.2rem;min-width:0}
.field.grow{flex:1 1 12rem}
.field input{width:100%}
#key{width:10rem}
.field label{font-size:.8rem;font-weight:600;color:var(--muted)}
#status{color:var(--muted);margin:.75rem 0 .25rem}
.loss{color:var(--muted);margin:0 0 .25rem}.loss.bad{color:var(--bad);font-weight:600}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.45rem .4rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere;vertical-align:baseline}
th{font-size:.8rem;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
th:first-child,td:first-child{padding-left:0}
th:not(:first-child),td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums;width:7rem}
th:last-child,td:last-child{padding-right:0;width:8rem}
@media (max-width:40rem){.requests,.count{display:none}th:not(:first-child),td:not(:first-child){width:5.25rem}th:last-child,td:last-child{width:5.5rem}}
.value{display:block;font-size:.88rem;color:var(--muted)}
tbody tr:last-child td{border-bottom:0}
.untagged{color:var(--muted);font-style:italic}
.bar{display:block;height:.35rem;border-radius:.2rem;background:var(--bad);margin:.25rem 0 0 auto;min-width:1px}`;

/**
 * The page's behaviour. A failure is told in words (401: the token is unknown; 403: it may not read this
 * account's errors by tag; 400: the API's own message, which names the limit and how to narrow the query).
 */
const SCRIPT = `
(() => {
  const account = document.querySelector("main").dataset.account;
  const KEY = "analytics-token";
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $("status").textContent = text; };
  const token = () => sessionStorage.getItem(KEY);
  const el = (name, props, ...children) => { const e = document.createElement(name); Object.assign(e, props || {}); e.append(...children); return e; };
  const base = "/accounts/" + account;
${TOKEN_CLIENT}
${PERCENT_CLIENT}
  const ENTER = "Enter a token to load the account's errors.";
  function explain(e) {
    if (e.status === 401) { refuse("This token was not accepted: this service does not know it. Check that it was copied whole, then enter it again."); return ENTER; }
    if (e.status === 403) { refuse("This token is known, but it may not read this account's errors by tag: it needs the zones:read and tags:read permissions, for the account or some of its zones."); return ENTER; }
    if (e.status === 0) return e.message;
    if (e.status >= 500) return "The API failed to answer (HTTP " + e.status + "). Try again in a moment; if it persists, quote this: " + e.message;
    return "This query was refused: " + e.message;
  }
  function rateCell(rate) {
    const td = el("td", { textContent: pct(rate) });
    if (rate !== null) { const bar = el("span", { className: "bar" }); bar.style.width = Math.max(1, Math.round(rate * 100)) + "%"; bar.setAttribute("aria-hidden", "true"); td.append(bar); }
    return td;
  }
  const valueText = (value) => value === null ? "untagged" : value === "" ? "(key only)" : value;
  const valueCell = (value) => el("td", { className: value === null ? "untagged" : "", textContent: valueText(value) });
  const requestsCell = (n) => el("td", { className: "requests", textContent: String(n) });
  const num = (n) => el("td", { textContent: String(n) });
  function draw(r, filtered) {
    $("groups").replaceChildren(...r.groups.map((g) => { const tr = el("tr", {}, valueCell(g.value), el("td", { className: "count", textContent: String(g.zones.length) }), num(g.total), requestsCell(g.requests), rateCell(g.error_rate)); tr.dataset.group = g.value === null ? "" : g.value; tr.dataset.untagged = String(g.value === null); return tr; }));
    $("zones").replaceChildren(...r.zones.map((z) => { const link = el("a", { href: "/zones/" + encodeURIComponent(z.zone) + "/analytics", textContent: z.zone }); const value = el("span", { className: z.value === null ? "value untagged" : "value", textContent: valueText(z.value) }); const tr = el("tr", {}, el("td", {}, link, value), num(z.total), requestsCell(z.requests), rateCell(z.error_rate)); tr.dataset.zone = z.zone; return tr; }));
    const share = r.error_rate === null ? "" : " (" + pct(r.error_rate) + " of " + r.requests + " requests)";
    const scope = r.scope === "account" ? "" : " This token sees only its own zones of the account.";
    // "0 errors in 0 zones" would not say why: no zone matched the filters, or none belongs to the account.
    if (r.zones.length === 0) status((filtered ? "No zone of this account matches these filters." : "No zone belongs to this account: a zone joins one through the account.id of its settings (PUT or PATCH /zones/{zone}).") + scope);
    else status(r.total + " errors" + share + " in " + r.zones.length + (r.zones.length === 1 ? " zone" : " zones") + "." + scope);
    $("loss").hidden = false;
    $("loss").textContent = r.dropped + (r.dropped === 1 ? " record" : " records") + " dropped in this range" + (r.dropped > 0 ? ": the stores could not take them; the counts above miss them." : ".");
    $("loss").className = r.dropped > 0 ? "loss bad" : "loss";
  }
  async function load() {
    showToken();
    if (!token()) { status(ENTER); return; }
    status("Loading…");
    const until = Math.floor(Date.now() / 1000);
    const q = new URLSearchParams({ since: String(until - Number($("window").value)), until: String(until) });
    const key = $("key").value.trim();
    if (key) q.set("group_by", "tag:" + key);
    for (const f of $("filters").value.split(/\\s+/)) if (f) q.append("tag", f);
    try { const r = await api("/analytics/errors?" + q.toString()); $("token-problem").hidden = true; draw(r, q.has("tag")); }
    catch (e) { $("groups").replaceChildren(); $("zones").replaceChildren(); $("loss").hidden = true; status(explain(e)); }
  }
  $("auth").addEventListener("submit", (e) => { e.preventDefault(); const v = $("token").value.trim(); if (!v) return; sessionStorage.setItem(KEY, v); $("token").value = ""; $("token-problem").hidden = true; load(); });
  $("forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); showToken(); status("Token forgotten. " + ENTER); $("token").focus(); });
  $("query").addEventListener("submit", (e) => { e.preventDefault(); load(); });
  $("window").addEventListener("change", load);
  load();
})();
`;
