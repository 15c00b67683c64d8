/**
 * `GET /zones/{zone}/analytics` on an API host (docs/analytics.md "Page"): a public HTML shell. It holds
 * no data, so it needs no token; it asks for one, keeps it in `sessionStorage` (this tab only, gone when the tab
 * closes) and calls the JSON API with it. The chart is drawn by a small inline script as SVG elements built with
 * the DOM (text only through `textContent`, never markup), so the page makes no request but to the API itself and
 * runs under a strict CSP: one nonce per response for its one script and one style, `connect-src 'self'`.
 */
import { CATALOG } from "../../errors/catalog";
import { typeUri } from "../../errors/pipeline";
import { escapeHtml } from "../../shared/html-escape";
import { RAY_ID_PATTERN } from "../../shared/ray";
import type { RequestContext } from "../../shared/request-context";
import type { Settings } from "../../shared/settings";
import { parseZoneName } from "../../state/zone/schema";
import { API_PAGE_STYLE, CHECK_ICON, PERCENT_CLIENT, TOKEN_CLIENT, tokenPageHeaders } from "../kit/page-style";

/**
 * The page of `/zones/:zone/analytics` (GET or HEAD, routes.ts `analyticsPages`), or null when the path names no
 * zone (then the API answers as if no page were there).
 */
export function zoneAnalyticsPage(rc: RequestContext, params: Readonly<Record<string, string>>): Response | null {
  const { request, url, settings } = rc;
  let raw = params.zone ?? "";
  try {
    raw = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const zone = parseZoneName(raw.toLowerCase());
  if (!zone.ok) return null;
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const html = renderPage(zone.value, nonce, referenceBase(url, settings));
  return new Response(request.method === "HEAD" ? null : html, {
    headers: tokenPageHeaders(nonce),
  });
}

/**
 * Where a code's reference page is: the catalog's own URL for it (the `type` of its errors, src/errors/pipeline.ts
 * `typeUri`: `{SERVICE_PREFIX}/errors/{code}` on this host, or under ERROR_DOCS_BASE), without the code.
 */
function referenceBase(url: URL, settings: Settings): string {
  const sample = typeUri(500, url.href, settings);
  return sample.slice(0, sample.length - "500".length);
}

/** Each catalog code's title, as JSON: the page links a top code to its reference and names it. */
let catalogTitles: string | undefined;
function titlesJson(): string {
  catalogTitles ??= JSON.stringify(Object.fromEntries(CATALOG.map((entry) => [entry.code, entry.title])));
  return catalogTitles;
}

/**
 * A JSON data block (HTML Living Standard §4.12.1.1: a `<script>` of a non-JavaScript type is never run, so the
 * CSP's `script-src` does not concern it). `<` is written as its JSON escape, so no value can end the element.
 */
function dataBlock(id: string, json: string): string {
  return `<script type="application/json" id="${id}">${json.replace(/</g, "\\u003c")}</script>`;
}

const REFRESH_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M20 11a8 8 0 1 0-2.3 5.7"/><path d="M20 4v7h-7"/></svg>';

export function renderPage(zone: string, nonce: string, reference: string): string {
  const z = escapeHtml(zone);
  const data = dataBlock("catalog", `{"reference":${JSON.stringify(reference)},"titles":${titlesJson()}}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Errors served by ${z}</title>
<style nonce="${nonce}">${API_PAGE_STYLE}
${STYLE}</style>
</head>
<body>
<main class="wide" data-zone="${z}">
<p class="crumbs"><a href="/">All zones</a></p>
<header class="card">
<p class="eyebrow neutral">Error analytics</p>
<h1>Errors served by <span class="zone">${z}</span></h1>
<p class="lead">The errors this service answered for the zone, and the origin's errors it passed through, from its own records.</p>
</header>
<section class="card" aria-labelledby="token-title">
<h2 id="token-title">API token</h2>
<form id="auth" class="stack">
<label for="token">A token with zones:read for ${z}</label>
<div class="inline"><input id="token" type="password" autocomplete="off" spellcheck="false"><button type="submit" class="primary">Use token</button></div>
<p class="hint">It stays in this tab's session storage and is sent only to this API.</p>
</form>
<div id="token-state" class="token-state" hidden>
<p><span class="badge ok">${CHECK_ICON}Token in use</span> <span id="token-name"></span></p>
<button type="button" id="forget" class="big">Forget token</button>
</div>
<p id="token-problem" class="alert" role="alert" hidden></p>
</section>
<section class="card" aria-labelledby="chart-title">
<div class="chart-head">
<h2 id="chart-title">Errors over time</h2>
<form id="range" class="controls">
<div class="field"><label for="window">Window</label><select id="window"><option value="3600">1 hour</option><option value="21600">6 hours</option><option value="86400">24 hours</option><option value="604800">7 days</option></select></div>
<div class="field"><label for="stack">Stack by</label><select id="stack"><option value="source">source</option><option value="answered_by">answered by</option><option value="code">code</option><option value="format">format</option></select></div>
<button type="submit" class="icon" aria-label="Refresh" title="Refresh">${REFRESH_ICON}</button>
</form>
</div>
<p id="status" role="status" aria-live="polite">Enter a token to load the zone's errors.</p>
<p id="loss" hidden></p>
<p id="avoided" hidden></p>
<div id="chart"></div><ul id="legend" class="legend"></ul>
</section>
<div class="cols">
<section class="card" aria-labelledby="codes-title"><h2 id="codes-title">Top codes</h2><table><thead><tr><th scope="col">Code</th><th scope="col">Count</th></tr></thead><tbody id="codes"></tbody></table><p class="hint">A code links to its reference: what it means and what to do.</p></section>
<section class="card" aria-labelledby="paths-title"><h2 id="paths-title">Top paths</h2><table class="paths"><thead><tr><th scope="col">Path</th><th scope="col">Count</th></tr></thead><tbody id="paths"></tbody></table></section>
</div>
<section class="card" aria-labelledby="alerts-title"><h2 id="alerts-title">Alerts</h2><table class="alerts"><thead><tr><th scope="col">Policy</th><th scope="col">State</th></tr></thead><tbody id="alerts"></tbody></table><p id="alerts-status" class="hint">Alert policies are made through the API: POST /zones/${z}/analytics/alerts.</p></section>
<section class="card" aria-labelledby="ray-title"><h2 id="ray-title">Look up a Ray ID</h2>
<form id="ray" class="stack"><label for="ray-id">Ray ID</label><div class="inline"><input id="ray-id" inputmode="latin" pattern="[0-9a-f]{16}" maxlength="16" spellcheck="false" autocomplete="off" aria-describedby="ray-hint"><button type="submit" class="big">Look up</button></div><p class="hint" id="ray-hint">16 characters, shown in an error's details.</p></form>
<p id="ray-status" role="status" aria-live="polite"></p>
<dl id="occurrence"></dl></section>
</main>
${data}
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

/** What only this page has: the chart's series colours, the controls row, the tables. */
const STYLE = `:root{--c0:var(--link);--c1:var(--bad);--c2:var(--ok);--c3:var(--warn);--c4:#6a3fa0;--c5:#00695c}
@media (prefers-color-scheme:dark){:root{--c4:#d7aefb;--c5:#78d9ec}}
.zone{overflow-wrap:anywhere}
.chart-head{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:.5rem 1rem}
.chart-head h2{margin:0}
.controls{display:flex;align-items:flex-end;gap:.5rem;min-width:0;max-width:100%}
.field{display:flex;flex-direction:column;gap:.2rem;min-width:0}
.field label{font-size:.8rem;font-weight:600;color:var(--muted)}
#status{color:var(--muted);margin:.75rem 0 .25rem}
.loss{color:var(--muted);margin:0 0 .25rem}.loss.bad{color:var(--bad);font-weight:600}
#avoided{margin:0 0 .25rem}
#chart{width:100%;min-height:2rem}
#chart svg{display:block;max-width:100%}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0 0}
.legend .swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.35rem;vertical-align:middle;border-radius:2px}
.cols{display:grid;grid-template-columns:minmax(0,1fr);column-gap:1rem}
@media (min-width:48rem){.cols{grid-template-columns:minmax(0,1fr) minmax(0,1fr);align-items:start}}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.45rem .4rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere;vertical-align:baseline}
th{font-size:.8rem;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
th:first-child,td:first-child{padding-left:0}th:last-child,td:last-child{padding-right:0;text-align:right;width:4.5rem;font-variant-numeric:tabular-nums}
tbody tr:last-child td{border-bottom:0}
td .code{font-weight:700;font-variant-numeric:tabular-nums}
.title{display:block;color:var(--muted);font-size:.85rem;line-height:1.35}
.inline{max-width:32rem}
#token-name .mono{font-size:.9rem}
.paths td:first-child{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88rem}
.alerts th:last-child,.alerts td:last-child{width:9rem}.alerts .stamp{white-space:nowrap}
@media (min-width:48rem){.alerts th:last-child,.alerts td:last-child{width:14rem}}
.alerts .badge{white-space:nowrap}.badge.bad{background:var(--bad-bg);color:var(--bad)}
#ray-status:empty{display:none}
#occurrence{margin-top:1rem}
#occurrence:empty{display:none}`;

/**
 * The page's behaviour; data from the API reaches the document only through textContent and SVG attributes. A
 * failure is told in words, by what the API answered (401: the token is unknown; 403: it may not read this zone;
 * 404: no such zone or record), never as the envelope's raw message.
 */
const SCRIPT = `
(() => {
  const main = document.querySelector("main");
  const zone = main.dataset.zone;
  const catalog = JSON.parse(document.getElementById("catalog").textContent);
  const KEY = "analytics-token";
  const base = "/zones/" + encodeURIComponent(zone);
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $("status").textContent = text; };
  const token = () => sessionStorage.getItem(KEY);
  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (name, attrs) => { const e = document.createElementNS(SVG, name); for (const k in attrs) e.setAttribute(k, String(attrs[k])); return e; };
  const el = (name, props, ...children) => { const e = document.createElement(name); Object.assign(e, props || {}); e.append(...children); return e; };
  const colours = ["--c0", "--c1", "--c2", "--c3", "--c4", "--c5"];
  const colour = (i) => getComputedStyle(document.documentElement).getPropertyValue(colours[i % colours.length]).trim();

${TOKEN_CLIENT}
${PERCENT_CLIENT}
  /** What a failed call means for the person reading: a token refused here, anything else in the status line. */
  function explain(e, where) {
    if (e.status === 401) { refuse("This token was not accepted: this service does not know it. Check that it was copied whole, then enter it again."); return "Enter a token to load the zone's errors."; }
    if (e.status === 403) { refuse("This token is known, but it may not read " + zone + ": it needs the zones:read permission for this zone."); return "Enter a token to load the zone's errors."; }
    if (e.status === 404 && e.code === 1001) return "No zone " + zone + " is configured on this service.";
    if (e.status === 0) return e.message;
    if (e.status >= 500) return "The API failed to answer (HTTP " + e.status + "). Try again in a moment; if it persists, quote this: " + e.message;
    return where + " was refused (HTTP " + e.status + "): " + e.message;
  }

  function codeCell(code) {
    const title = catalog.titles[code];
    if (title === undefined) return el("td", {}, el("span", { className: "code", textContent: String(code) }), el("span", { className: "title", textContent: "the origin's status, passed through" }));
    const link = el("a", { className: "code", href: catalog.reference + code, textContent: String(code) });
    return el("td", {}, link, el("span", { className: "title", textContent: title }));
  }
  function rows(tbody, items, cell) {
    tbody.replaceChildren(...items.map((it) => { const n = el("td", { textContent: String(it.count) }); if (it.rate !== null && it.rate !== undefined) n.title = pct(it.rate) + " of requests"; const tr = el("tr", {}, cell(it), n); tr.dataset.key = String(it.code ?? it.path); return tr; }));
  }
  function label(group) { const v = Object.values(group); return v.length ? v.join(" / ") : "all"; }
  const hhmm = (iso) => iso.slice(11, 16);
  const day = (iso) => iso.slice(0, 10);
  function chart(r) {
    // Drawn at the container's own width (never scaled), so the axis text keeps its size on a 360 px screen.
    const W = Math.max(260, Math.round($("chart").getBoundingClientRect().width)), H = 260;
    const L = 44, R = 8, T = 12, B = 40;
    const n = r.timestamps.length;
    const totals = r.timestamps.map((_, i) => r.series.reduce((s, x) => s + x.counts[i], 0));
    const peak = Math.max(1, ...totals);
    const step = Math.pow(10, Math.floor(Math.log10(peak)));
    const top = [1, 2, 5, 10].map((m) => m * step).find((v) => v >= peak) || peak;
    const svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" });
    const fg = getComputedStyle(document.body).color;
    const line = getComputedStyle(document.documentElement).getPropertyValue("--line").trim();
    const text = (x, y, value, anchor) => { const t = svgEl("text", { x: x, y: y, "text-anchor": anchor, fill: fg, "font-size": 12 }); t.textContent = value; svg.append(t); };
    const plotH = H - T - B;
    for (const f of [0, 0.5, 1]) {
      const y = T + plotH * (1 - f);
      svg.append(svgEl("line", { x1: L, y1: y, x2: W - R, y2: y, stroke: f === 0 ? fg : line }));
      text(L - 6, y + 4, String(Math.round(top * f * 10) / 10), "end");
    }
    const bw = (W - L - R) / Math.max(1, n);
    const stacked = new Array(n).fill(0);
    r.series.forEach((s, si) => {
      s.counts.forEach((c, i) => {
        if (!c) return;
        const h = (c / top) * plotH;
        stacked[i] += h;
        const rect = svgEl("rect", { x: L + i * bw + (bw > 3 ? 0.5 : 0), y: T + plotH - stacked[i], width: Math.max(1, bw > 3 ? bw - 1 : bw), height: h, fill: colour(si), "data-series": label(s.group), "data-count": c });
        const tip = svgEl("title", {}); tip.textContent = label(s.group) + ": " + c + " at " + hhmm(r.timestamps[i]) + " UTC"; rect.append(tip);
        svg.append(rect);
      });
    });
    const ticks = W < 480 ? [0, n] : [0, Math.round(n / 2), n];
    const iso = (i) => new Date(Date.parse(r.since) + (i / Math.max(1, n)) * (Date.parse(r.until) - Date.parse(r.since))).toISOString();
    ticks.forEach((i, k) => text(L + i * bw, H - B + 16, hhmm(iso(i)), k === 0 ? "start" : k === ticks.length - 1 ? "end" : "middle"));
    text(L, H - 6, day(r.since) + " UTC · errors per " + r.step, "start");
    const title = svgEl("title", {}); title.textContent = r.total + " errors from " + r.since + " to " + r.until + " by " + (r.group_by[0] || "total");
    svg.prepend(title);
    svg.setAttribute("aria-label", title.textContent);
    $("chart").replaceChildren(svg);
    $("legend").replaceChildren(...r.series.map((s, si) => { const li = el("li", {}, el("span", { className: "swatch" }), el("span", { textContent: label(s.group) }), " ", el("strong", { textContent: String(s.total) })); li.firstChild.style.background = colour(si); li.dataset.series = label(s.group); return li; }));
  }
  // What fewer-errors features spared the visitors (docs/analytics.md "Avoided errors"), beside what they saw.
  function avoided(a, seen) {
    const k = a ? a.by_kind : null;
    if (!k || a.total === 0) { $("avoided").hidden = true; return; }
    const spared = k.stale + k.failover;
    const times = (n, one, many) => n + " " + (n === 1 ? one : many);
    let text = times(spared, "origin failure", "origin failures") + " answered anyway in this range (" + k.stale + " from a stale copy, " + k.failover + " by the fallback origin); visitors saw " + times(seen, "error", "errors") + ".";
    if (k.circuit_open > 0) text += " " + times(k.circuit_open, "error was", "errors were") + " answered at once while the origin's circuit was open.";
    $("avoided").textContent = text;
    $("avoided").hidden = false;
  }
  // The zone's alert policies and their state (docs/analytics.md "Alerts"); their failure never hides the counts.
  function describe(p) {
    if (p.kind === "burn_rate") return "origin error budget (SLO " + p.slo + " %) burning at ≥ " + p.burn_rate + "× over " + p.long_window_minutes + " and " + p.short_window_minutes + " min";
    const what = p.metric === "errors" ? "≥ " + p.above + " errors" : "error rate ≥ " + pct(p.above);
    const f = p.filter || {};
    const by = ["code", "source", "path"].filter((k) => f[k] !== undefined).map((k) => k + " " + f[k]).join(", ");
    return what + " over " + p.window_minutes + " min" + (by ? " (" + by + ")" : "");
  }
  async function loadAlerts() {
    try {
      const list = await api("/analytics/alerts");
      $("alerts").replaceChildren(...list.map((p) => {
        const firing = p.state.status === "firing";
        const badge = el("span", { className: "badge " + (firing ? "bad" : "ok"), textContent: firing ? "Firing" : p.enabled ? "OK" : "Off" });
        // The date and the time are each kept whole (a hyphen is a break opportunity): "since 2026-11-28 16:22 UTC" on
        // one line where the column allows, else broken only between the three.
        const stamp = (t) => el("span", { className: "stamp", textContent: t });
        const since = el("span", { className: "title" }, "since ", stamp(p.state.since.slice(0, 10)), " ", stamp(p.state.since.slice(11, 16) + " UTC"));
        const tr = el("tr", {}, el("td", {}, el("strong", { textContent: p.name }), el("span", { className: "title", textContent: describe(p) })), el("td", {}, badge, since));
        tr.dataset.alert = p.id; tr.dataset.state = p.state.status;
        return tr;
      }));
      $("alerts-status").textContent = list.length === 0 ? "No alert policy. Make one with POST /zones/" + zone + "/analytics/alerts." : list.filter((p) => p.state.status === "firing").length + " of " + list.length + " firing.";
    } catch (e) { if (e.status !== 401 && e.status !== 403) $("alerts-status").textContent = "The alerts could not be loaded (HTTP " + e.status + ")."; }
  }
  async function load() {
    showToken();
    if (!token()) { status("Enter a token to load the zone's errors."); return; }
    status("Loading…");
    const until = Math.floor(Date.now() / 1000);
    const since = until - Number($("window").value);
    try {
      const r = await api("/analytics/errors?since=" + since + "&until=" + until + "&group_by=" + $("stack").value);
      $("token-problem").hidden = true;
      chart(r);
      rows($("codes"), r.top_codes, (it) => codeCell(it.code));
      rows($("paths"), r.top_paths, (it) => el("td", { textContent: it.path }));
      // The error rate over every request counted (docs/analytics.md "Requests and drops"), and the loss, always.
      const share = r.error_rate === null ? "" : " (" + pct(r.error_rate) + " of " + r.requests + " requests)";
      status(r.total + " errors" + share + ", " + r.step + " steps.");
      $("loss").hidden = false;
      $("loss").textContent = r.dropped + (r.dropped === 1 ? " record" : " records") + " dropped in this range" + (r.dropped > 0 ? ": the store could not take them; the counts above miss them." : ".");
      $("loss").className = r.dropped > 0 ? "loss bad" : "loss";
      avoided(r.avoided, r.total);
      await loadAlerts();
    } catch (e) { status(explain(e, "Loading the errors")); }
  }
  $("auth").addEventListener("submit", (e) => { e.preventDefault(); const v = $("token").value.trim(); if (!v) return; sessionStorage.setItem(KEY, v); $("token").value = ""; $("token-problem").hidden = true; load(); });
  $("forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); showToken(); status("Token forgotten. Enter a token to load the zone's errors."); $("token").focus(); });
  $("range").addEventListener("submit", (e) => { e.preventDefault(); load(); });
  $("window").addEventListener("change", load);
  $("stack").addEventListener("change", load);
  $("ray").addEventListener("submit", async (e) => {
    e.preventDefault();
    const dl = $("occurrence");
    const ray = $("ray-id").value.trim().toLowerCase();
    dl.replaceChildren();
    if (!${RAY_ID_PATTERN}.test(ray)) { $("ray-status").textContent = "A Ray ID is 16 characters, digits and the letters a to f."; return; }
    if (!token()) { $("ray-status").textContent = "Enter a token first."; return; }
    $("ray-status").textContent = "Looking up…";
    try {
      const o = await api("/errors/" + encodeURIComponent(ray));
      const fields = [["Ray ID", o.ray, "mono"], ["Time", o.time, "mono"], ["Code", codeCell(o.code)], ["Status", o.status, "mono"], ["Source", o.source], ["Answered by", o.answered_by + (o.answer_id ? " (" + o.answer_id + ")" : "")], ["Format", o.format], ["Request", o.method + " " + o.path, "mono"], ["Country", o.country || "unknown"], ["Cause", o.cause || "—"]];
      dl.replaceChildren(...fields.flatMap(([k, v, cls]) => [el("dt", { textContent: k }), typeof v === "object" ? el("dd", {}, ...v.childNodes) : el("dd", { className: cls || "", textContent: String(v) })]));
      $("ray-status").textContent = "";
    } catch (err) {
      $("ray-status").textContent = err.status === 404 ? "No error with this Ray ID for " + zone + " in the last 7 days." : explain(err, "The lookup");
    }
  });
  load();
})();
`;
