/**
 * `GET /zones/{zone}/analytics` on an API host (issue 24, docs/analytics.md "Page"): a public HTML shell. It holds
 * no data, so it needs no token; it asks for one, keeps it in `sessionStorage` (this tab only, gone when the tab
 * closes) and calls the JSON API with it. The chart is drawn by a small inline script as SVG elements built with
 * the DOM (text only through `textContent`, never markup), so the page makes no request but to the API itself and
 * runs under a strict CSP: one nonce per response for its one script and one style, `connect-src 'self'`.
 */
import { parseZoneName } from "../../state/zone/schema";

const PAGE_PATH = /^\/zones\/([^/]+)\/analytics\/?$/;

/** The page's Response, or null when the request is not for it. */
export function analyticsPage(request: Request, url: URL): Response | null {
  const match = PAGE_PATH.exec(url.pathname);
  if (match === null || (request.method !== "GET" && request.method !== "HEAD")) return null;
  let raw = match[1]!;
  try {
    raw = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const zone = parseZoneName(raw.toLowerCase());
  if (!zone.ok) return null;
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const html = renderPage(zone.value, nonce);
  return new Response(request.method === "HEAD" ? null : html, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy":
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
        "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    },
  });
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderPage(zone: string, nonce: string): string {
  const z = escapeHtml(zone);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Errors served by ${z}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main data-zone="${z}">
<h1>Errors served by <span class="zone">${z}</span></h1>
<form id="auth" class="row">
<label for="token">API token (zones:read)</label>
<input id="token" type="password" autocomplete="off" spellcheck="false">
<button type="submit">Use token</button>
<button type="button" id="forget">Forget</button>
</form>
<p class="note">The token stays in this tab's session storage and is sent only to this API.</p>
<form id="range" class="row">
<label for="window">Window</label>
<select id="window"><option value="3600">last hour</option><option value="21600">last 6 hours</option><option value="86400">last 24 hours</option><option value="604800">last 7 days</option></select>
<label for="stack">Stack by</label>
<select id="stack"><option value="source">source</option><option value="answered_by">what answered</option><option value="code">code</option><option value="format">format</option></select>
<button type="submit">Refresh</button>
</form>
<p id="status" role="status" aria-live="polite">Enter a token to load the zone's errors.</p>
<section aria-labelledby="chart-title"><h2 id="chart-title">Errors over time</h2><div id="chart"></div><ul id="legend" class="legend"></ul></section>
<div class="cols">
<section aria-labelledby="codes-title"><h2 id="codes-title">Top codes</h2><table><thead><tr><th scope="col">Code</th><th scope="col">Count</th></tr></thead><tbody id="codes"></tbody></table></section>
<section aria-labelledby="paths-title"><h2 id="paths-title">Top paths</h2><table><thead><tr><th scope="col">Path</th><th scope="col">Count</th></tr></thead><tbody id="paths"></tbody></table></section>
</div>
<section aria-labelledby="ray-title"><h2 id="ray-title">Look up a Ray ID</h2>
<form id="ray" class="row"><label for="ray-id">Ray ID</label><input id="ray-id" inputmode="latin" pattern="[0-9a-f]{16}" maxlength="16" spellcheck="false"><button type="submit">Look up</button></form>
<dl id="occurrence"></dl></section>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

const STYLE = `
:root{--bg:#fff;--fg:#1a1a1a;--muted:#555;--line:#ccc;--accent:#0b57d0;--c0:#0b57d0;--c1:#b3261e;--c2:#1e7b34;--c3:#8a4b08;--c4:#6a1b9a;--c5:#00695c}
@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#ececec;--muted:#b0b0b0;--line:#444;--accent:#8ab4f8;--c0:#8ab4f8;--c1:#f28b82;--c2:#81c995;--c3:#fdd663;--c4:#d7aefb;--c5:#78d9ec}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,sans-serif}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:1.2rem 0 .4rem}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);border-radius:4px;padding:.3rem .5rem;min-height:2.25rem}
input{min-width:0;flex:1 1 12rem}
button{cursor:pointer}
button:focus-visible,input:focus-visible,select:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.note{color:var(--muted);font-size:.9rem;margin:0}
#chart svg{display:block;max-width:100%}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.4rem 0}
.legend .swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.35rem;vertical-align:middle;border-radius:2px}
#chart{width:100%;min-height:2rem}
section{margin-top:1rem}
td:first-child{font-family:ui-monospace,monospace;font-size:.9rem}
.cols{display:grid;grid-template-columns:1fr;gap:1rem}
@media (min-width:48rem){.cols{grid-template-columns:1fr 1fr}}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
th:last-child,td:last-child{text-align:right;width:6rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;overflow-wrap:anywhere}
dt{color:var(--muted)}
dd{margin:0;min-width:0}
`;

/** The page's behaviour; data from the API reaches the document only through textContent and SVG attributes. */
const SCRIPT = `
(() => {
  const main = document.querySelector("main");
  const zone = main.dataset.zone;
  const KEY = "analytics-token";
  const base = "/zones/" + encodeURIComponent(zone);
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $("status").textContent = text; };
  const token = () => sessionStorage.getItem(KEY);
  const SVG = "http://www.w3.org/2000/svg";
  const svgEl = (name, attrs) => { const e = document.createElementNS(SVG, name); for (const k in attrs) e.setAttribute(k, String(attrs[k])); return e; };
  const colours = ["--c0", "--c1", "--c2", "--c3", "--c4", "--c5"];
  const colour = (i) => getComputedStyle(document.documentElement).getPropertyValue(colours[i % colours.length]).trim();
  async function api(path) {
    const res = await fetch(base + path, { headers: { Authorization: "Bearer " + token() }, cache: "no-store" });
    const body = await res.json();
    if (!body.success) throw new Error(body.errors.map((e) => e.code + ": " + e.message).join("; "));
    return body.result;
  }
  function label(group) { const v = Object.values(group); return v.length ? v.join(" / ") : "all"; }
  function rows(tbody, items, key) {
    tbody.replaceChildren(...items.map((it) => { const tr = document.createElement("tr"); const a = document.createElement("td"); a.textContent = String(it[key]); const b = document.createElement("td"); b.textContent = String(it.count); tr.append(a, b); return tr; }));
  }
  const hhmm = (iso) => iso.slice(11, 16);
  const day = (iso) => iso.slice(0, 10);
  function chart(r) {
    // Drawn at the container's own width (never scaled), so the axis text keeps its size on a 360 px screen.
    const W = Math.max(280, Math.round($("chart").getBoundingClientRect().width)), H = 260;
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
    $("legend").replaceChildren(...r.series.map((s, si) => { const li = document.createElement("li"); li.dataset.series = label(s.group); const sw = document.createElement("span"); sw.className = "swatch"; sw.style.background = colour(si); const name = document.createElement("span"); name.textContent = label(s.group); const count = document.createElement("strong"); count.textContent = String(s.total); li.append(sw, name, " ", count); return li; }));
  }
  async function load() {
    if (!token()) { status("Enter a token to load the zone's errors."); return; }
    status("Loading…");
    const until = Math.floor(Date.now() / 1000);
    const since = until - Number($("window").value);
    try {
      const r = await api("/analytics/errors?since=" + since + "&until=" + until + "&group_by=" + $("stack").value);
      chart(r); rows($("codes"), r.top_codes, "code"); rows($("paths"), r.top_paths, "path");
      status(r.total + " errors, " + r.step + " steps.");
    } catch (e) { status("Could not load: " + e.message); }
  }
  $("auth").addEventListener("submit", (e) => { e.preventDefault(); const v = $("token").value.trim(); if (v) sessionStorage.setItem(KEY, v); $("token").value = ""; load(); });
  $("forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); status("Token forgotten."); });
  $("range").addEventListener("submit", (e) => { e.preventDefault(); load(); });
  $("ray").addEventListener("submit", async (e) => {
    e.preventDefault();
    const dl = $("occurrence");
    try {
      const o = await api("/errors/" + encodeURIComponent($("ray-id").value.trim()));
      const fields = [["Ray ID", o.ray], ["Time", o.time], ["Code", o.code], ["Status", o.status], ["Source", o.source], ["Answered by", o.answered_by + (o.answer_id ? " (" + o.answer_id + ")" : "")], ["Format", o.format], ["Request", o.method + " " + o.path], ["Country", o.country || "unknown"], ["Cause", o.cause || "—"]];
      dl.replaceChildren(...fields.flatMap(([k, v]) => { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = String(v); return [dt, dd]; }));
    } catch (err) { const dd = document.createElement("dd"); dd.textContent = err.message; const dt = document.createElement("dt"); dt.textContent = "Error"; dl.replaceChildren(dt, dd); }
  });
  load();
})();
`;
