/**
 * `GET /` on an API host (docs/configuration.md "The front door"): what this service is, and where to go from here:
 * the error catalog (`{SERVICE_PREFIX}/errors`, served on every host), the OpenAPI document, each zone's analytics
 * page and the documentation. Public, like the OpenAPI document: it holds no data. The zones are listed by a small
 * inline script once a token is entered (`GET /zones`, the token held in the script's memory only: never stored,
 * never in a URL, gone on reload). `Accept: application/json` gets the same links in the v4 envelope.
 *
 * The root of any other host is zone traffic (src/app.ts): a zone's `/` is its origin's.
 */
import { html, raw, type Html } from "../../errors/html";
import { negotiate, type NegotiationTable } from "../../shared/negotiate";
import type { RequestContext } from "../../shared/request-context";
import { apiSuccess } from "../kit/envelope";
import { API_PAGE_STYLE, CHECK_ICON, tokenPageHeaders } from "../kit/page-style";
import type { PageRoute } from "../kit/types";
import { DESCRIPTION, DOCS, DOCS_FOLDER, homeLinks, type HomeLinks } from "./links";

type HomeMediaType = "text/html" | "application/json";

/** HTML unless the client prefers JSON (a browser's `Accept` and `*\/*` get the page). */
const HOME_NEGOTIATION: NegotiationTable<HomeMediaType> = {
  offers: ["text/html", "application/json"],
  wildcardDefaults: { "*/*": "text/html", "text/*": "text/html", "application/*": "application/json" },
  fallback: "text/html",
};

/** The front door in the route table: a page, served to GET and HEAD before authentication (kit/types.ts). */
export const homeRoutes: readonly PageRoute[] = [{ kind: "page", path: "/", page: homePage }];

/** The front door's Response (GET or HEAD). */
function homePage(rc: RequestContext): Response {
  const { request, url, settings } = rc;
  const links = homeLinks(url, settings);
  if (negotiate(request.headers.get("Accept"), HOME_NEGOTIATION) === "application/json") {
    const response = apiSuccess(
      {
        service: "edge-errors",
        description: DESCRIPTION,
        links,
        docs: DOCS.map((d) => ({ title: d.title, about: d.about, path: DOCS_FOLDER + d.file })),
      },
      { headers: { Vary: "Accept" } },
    );
    return request.method === "HEAD" ? new Response(null, response) : response;
  }
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  const body = renderHome(links, settings.servicePrefix, nonce);
  return new Response(request.method === "HEAD" ? null : body, {
    headers: { ...tokenPageHeaders(nonce), Vary: "Accept" },
  });
}

function renderHome(links: HomeLinks, servicePrefix: string, nonce: string): string {
  const page: Html = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>edge-errors: management API</title>
<style nonce="${nonce}">${raw(API_PAGE_STYLE)}
${raw(STYLE)}</style>
</head>
<body>
<main>
<header class="card">
<p class="eyebrow neutral">edge-errors · management API</p>
<h1>Structured edge errors</h1>
<p class="lead">${DESCRIPTION}</p>
</header>
<section class="card" aria-labelledby="start-title">
<h2 id="start-title">Start here</h2>
<ul class="doors">
<li><a href="${links.error_catalog}">Error catalog</a><span>Every code the edge answers with: what it means, who can fix it, whether to retry. Any host serves it under <code class="mono">${servicePrefix}/errors</code>.</span></li>
<li><a href="${links.openapi}">OpenAPI document</a><span>Every route of the management API, its parameters and answers. No token needed.</span></li>
<li><a href="#docs-title">Documentation</a><span>How the service works, how to configure it, and every API: the documents of the service's source, below.</span></li>
</ul>
</section>
<section class="card" aria-labelledby="zones-title">
<h2 id="zones-title">Your zones</h2>
<p>Each zone has an analytics page: its errors over time, top codes and paths, and a Ray ID lookup. Enter an API token with <code class="mono">zones:read</code> to list the zones it can read, each linked to its page.</p>
<form id="auth" class="stack">
<label for="token">API token</label>
<div class="inline"><input id="token" type="password" autocomplete="off" spellcheck="false"><button type="submit" class="primary">List zones</button></div>
<p class="hint">The token stays in this page's memory: it is sent only to this API and forgotten when you leave or reload.</p>
</form>
<div id="token-state" class="token-state" hidden>
<p><span class="badge ok">${raw(CHECK_ICON)}Token in use</span> <span id="token-name"></span></p>
<button type="button" id="forget" class="big">Forget token</button>
</div>
<p id="token-problem" class="alert" role="alert" hidden></p>
<p id="status" role="status" aria-live="polite"></p>
<ul id="zones" class="zones"></ul>
<p><button type="button" id="more" class="big" hidden>More zones</button></p>
<noscript><p>Listing zones needs JavaScript. Without it: <code class="mono">curl -H "Authorization: Bearer $TOKEN" ${links.zones}</code>, then open <code class="mono">/zones/{zone}/analytics</code>.</p></noscript>
</section>
<section class="card" aria-labelledby="docs-title">
<h2 id="docs-title">Documentation</h2>
<p>In the <code class="mono">${DOCS_FOLDER}</code> folder of the service's source:</p>
<ul class="docs">${DOCS.map((d) => html`<li><strong>${d.title}</strong><span><code class="mono">${DOCS_FOLDER + d.file}</code>: ${d.about}</span></li>`)}</ul>
</section>
<footer><p>The root of any other host is zone traffic: that website's own page.</p></footer>
</main>
<script nonce="${nonce}">${raw(SCRIPT)}</script>
</body>
</html>`;
  return page.toString();
}

const STYLE = `.doors,.docs,.zones{list-style:none;margin:0;padding:0}
.doors li,.docs li{display:grid;grid-template-columns:minmax(0,1fr);gap:.1rem;padding:.6rem 0;border-top:1px solid var(--line)}
.doors li:first-child,.docs li:first-child{border-top:0;padding-top:0}
.doors a{font-weight:700;font-size:1.05rem}
.doors span,.docs span{color:var(--muted);font-size:.92rem}
@media (min-width:40rem){.docs li{grid-template-columns:14rem minmax(0,1fr);gap:1rem;align-items:baseline}}
.zones{margin-top:.75rem}
.zones li{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem .75rem;padding:.55rem 0;border-top:1px solid var(--line)}
.zones li:first-child{border-top:0}
.zones .name{font-weight:700;flex:1 1 auto;min-width:0;overflow-wrap:anywhere}
.zones .chip{font-size:.8rem;color:var(--muted)}
#status:empty{display:none}
#token-name .mono{font-size:.9rem}
form.stack{margin-top:.75rem}`;

/**
 * Lists the zones the token can read, 50 at a time (`GET /zones` with its cursor), each linked to its analytics
 * page. The token lives in one variable of this closure: nothing is stored. Values reach the page only through
 * textContent and the `href` of a link built from `encodeURIComponent`.
 */
const SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (name, props, ...children) => { const e = document.createElement(name); Object.assign(e, props || {}); e.append(...children); return e; };
  let token = null;
  let cursor = null;
  const status = (text) => { $("status").textContent = text; };
  function showToken() {
    $("auth").hidden = token !== null;
    $("token-state").hidden = token === null;
    $("token-name").replaceChildren(...(token === null ? [] : ["ending in ", el("code", { className: "mono", textContent: "…" + token.slice(-4) })]));
  }
  function refuse(text) {
    token = null;
    showToken();
    $("zones").replaceChildren();
    $("more").hidden = true;
    status("");
    $("token-problem").textContent = text;
    $("token-problem").hidden = false;
    $("token").focus();
  }
  async function page() {
    status("Loading…");
    let res, body = null;
    try {
      res = await fetch("/zones?per_page=50" + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""), { headers: { Authorization: "Bearer " + token }, cache: "no-store" });
      body = await res.json();
    } catch { status(res ? "The API answered HTTP " + res.status + " without its usual body. Try again." : "The API could not be reached. Check the connection and try again."); return; }
    if (res.status === 401) { refuse("This token was not accepted: this service does not know it. Check that it was copied whole, then enter it again."); return; }
    if (res.status === 403) { refuse("This token is known, but it may not list zones: it needs the zones:read permission."); return; }
    if (!body.success) { status("The API could not list the zones (HTTP " + res.status + "): " + (body.errors[0] ? body.errors[0].message : "no reason given")); return; }
    $("token-problem").hidden = true;
    showToken();
    const items = body.result.map((z) => el("li", {}, el("a", { className: "name mono", href: "/zones/" + encodeURIComponent(z.name) + "/analytics", textContent: z.name }), el("span", { className: "chip", textContent: z.plan ? z.plan.name + " plan" : "" })));
    $("zones").append(...items);
    cursor = body.result_info.cursor;
    $("more").hidden = !cursor;
    const shown = $("zones").children.length;
    status(shown === 0 ? "This token can read no zone yet. Create one with PUT /zones/{zone} (see the documentation)." : shown + (shown === 1 ? " zone" : " zones") + (cursor ? " so far." : "."));
  }
  $("auth").addEventListener("submit", (e) => { e.preventDefault(); const v = $("token").value.trim(); if (!v) return; token = v; cursor = null; $("token").value = ""; $("zones").replaceChildren(); page(); });
  $("forget").addEventListener("click", () => { token = null; cursor = null; $("zones").replaceChildren(); $("more").hidden = true; status("Token forgotten."); showToken(); $("token").focus(); });
  $("more").addEventListener("click", () => { page(); });
})();
`;
