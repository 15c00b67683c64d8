/**
 * The look of the API host's own HTML pages (the front door at `/`, the analytics page): the error pages'
 * stylesheet itself (src/errors/page.ts `PAGE_STYLE`: type scale, cards, colours, dark mode through
 * `prefers-color-scheme`, focus states), shared rather than copied so the two cannot drift, plus what those pages
 * have and an error page has not: form controls, a primary button, a wider layout and a token badge. Constant
 * text: each page puts it in its one `<style>`, allowed by the page's CSP nonce.
 */
import { PAGE_STYLE } from "../../errors/page";

/**
 * Controls use `--muted` for their border, not the cards' `--line`: a control's edge must stand out from its
 * background at 3:1 (WCAG 2.2 §1.4.11), which `--line` does not.
 */
const CONTROLS = `main.wide{max-width:72rem}
label{font-weight:600}
input,select{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--muted);border-radius:.5rem;padding:.4rem .65rem;min-height:2.5rem;min-width:0;max-width:100%}
select{padding-right:.4rem}
form button,button.big{font-size:.95rem;min-height:2.5rem;padding:.35rem .9rem;border-color:var(--muted);white-space:nowrap}
button.primary{background:var(--link);border-color:var(--link);color:var(--card);font-weight:600}
button.primary:hover{background:var(--link);filter:brightness(1.1)}
button.icon{display:inline-flex;align-items:center;justify-content:center;width:2.5rem;padding:0;flex:none}
button.icon svg{width:1.25rem;height:1.25rem}
.hint{color:var(--muted);font-size:.88rem;margin:.4rem 0 0}
.inline{display:flex;gap:.5rem;align-items:stretch}
.inline input{flex:1 1 8rem}
.stack{display:flex;flex-direction:column;gap:.3rem}
.badge{display:inline-flex;align-items:center;gap:.35rem;font-weight:600;border-radius:1rem;padding:.1rem .6rem;font-size:.9rem}
.badge.ok{background:var(--ok-bg);color:var(--ok)}
.badge svg{width:1rem;height:1rem}
.token-state{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem .75rem}
.token-state p{margin:0;flex:1 1 12rem}
.alert{border-radius:.5rem;padding:.6rem .8rem;margin:.75rem 0 0;background:var(--bad-bg);color:var(--fg)}
.alert strong{color:var(--bad)}
.muted{color:var(--muted)}`;

export const API_PAGE_STYLE = `${PAGE_STYLE}\n${CONTROLS}`;

/** A check mark in a circle, for the token badge (decorative: the badge says it in words). */
export const CHECK_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round"><circle cx="12" cy="12" r="10"/><path d="M7.5 12.5l3 3 6-6.5"/></svg>';

/**
 * Headers of a page of the API host that takes a token (the front door, the analytics page). The token typed there
 * is reachable by no other page (docs/analytics.md "Who can reach the token"): scripts and styles only with this
 * answer's nonce, no opener keeps a handle on the window (COOP `same-origin`: a page that opened it, whatever its
 * origin, gets a closed handle), no page may frame it (`frame-ancestors 'none'`, `X-Frame-Options` for older
 * browsers), and no other origin may load it as a resource (CORP).
 */
export function tokenPageHeaders(nonce: string): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy":
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
      "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Frame-Options": "DENY",
  };
}

/**
 * The one way the API's pages write a share (the zone's and the account's analytics pages, docs/analytics.md): a
 * percentage rounded to two decimals with no trailing zeros ("68.25 %", "100 %", "5 %"), so the same rate reads the
 * same on both pages; `null` (no requests counted) is a dash. Rounded in hundredths so 0.07 is "7 %", not
 * "7.000000000000001 %".
 */
export const PERCENT_CLIENT = `  const pct = (rate) => rate === null ? "—" : Math.round(rate * 10000) / 100 + " %";`;

/**
 * The token pages' client script (the zone's and the account's analytics pages): `api(path)` calls the API under
 * `base` with the token kept in `sessionStorage` and throws `ApiError` (status, v4 code, message) on a refusal;
 * `showToken` and `refuse` say in words which token is in use or why it was refused. Spliced into a page's script,
 * where `base`, `KEY`, `$`, `el` and `token` are in scope.
 */
export const TOKEN_CLIENT = `  class ApiError extends Error { constructor(status, code, message) { super(message); this.status = status; this.code = code; } }
  async function api(path) {
    let res;
    try { res = await fetch(base + path, { headers: { Authorization: "Bearer " + token() }, cache: "no-store" }); }
    catch { throw new ApiError(0, 0, "The API could not be reached. Check the connection and try again."); }
    let body = null;
    try { body = await res.json(); } catch {}
    if (body && body.success) return body.result;
    const first = body && body.errors && body.errors[0];
    throw new ApiError(res.status, first ? first.code : 0, first ? first.message : "HTTP " + res.status);
  }

  // The token: which one is in use, or why it was refused, in words.
  function showToken() {
    const t = token();
    $("auth").hidden = t !== null;
    $("token-state").hidden = t === null;
    $("token-name").replaceChildren(...(t === null ? [] : ["ending in ", el("code", { className: "mono", textContent: "…" + t.slice(-4) })]));
  }
  function refuse(text) {
    sessionStorage.removeItem(KEY);
    showToken();
    $("token-problem").textContent = text;
    $("token-problem").hidden = false;
    $("token").focus();
  }
`;
