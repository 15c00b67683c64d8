/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * No zone speaks for the API, in a real browser (docs/configuration.md "Zone names", docs/custom-errors.md "Operator
 * content runs sandboxed", docs/analytics.md "Who can reach the token"). The real Worker on 127.0.0.1 (Miniflare,
 * API_HOSTS `localhost,127.0.0.1` as wrangler.toml ships them), Chromium resolving `localhost` and `*.test` to it.
 *
 * The attack: zone write rights on one name, the name of an API host. `PUT /zones/localhost` with a custom error
 * rule whose content is a page of script; the victim opens `/cdn-cgi/error/500` on the API's origin, follows its
 * button to the analytics page and types the admin token there; the rule's script, on the same origin, reads the
 * token from the window it opened. Each defence is then tried alone:
 *   - the name is refused (400), and a zone of that name stored anyway is not served on the API host;
 *   - operator content runs in an opaque origin (CSP `sandbox`): the same script served by an ordinary zone reads
 *     neither the storage of its host nor the analytics window it opened;
 *   - the analytics page severs its opener (COOP): even a page of the API's own origin gets a closed handle.
 */
import { launchChromium } from "./chromium.ts";
import { resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";

const root = resolve(import.meta.dirname, "../..");
const TOKEN = "browser-api-host-admin-token";
const VICTIM_ZONE = "victim-analytics.test";
const EVIL_ZONE = "evil-operator.test";
/** A closed port: the zones' traffic answers 521, which their `true` rule replaces. */
const ORIGIN = "http://127.0.0.1:1";

let served: Served;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let port: string;

/** The management API as the attacker (and the test) calls it: status and v4 envelope. */
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Envelope }> {
  const res = await served.miniflare.dispatchFetch(`http://localhost${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: JSON.parse(await res.text()) as Envelope };
}

interface Envelope {
  readonly success: boolean;
  readonly errors: readonly { readonly code: number; readonly message: string }[];
}

/**
 * The rule's content: a page whose button opens the analytics page (the victim clicks it, so no popup blocker is
 * involved) and whose script then reads the token from that window (its input while typed, its session storage
 * once kept) and from its own origin's session storage, every 20 ms. What it gets is `window.stolen`; what its
 * own origin is, `window.origin`; whether its own storage threw, `window.storageError`.
 */
function attackPage(analyticsUrl: string): string {
  return `<!doctype html><html><head><title>Maintenance</title></head><body>
<p>Our shop is down. Meanwhile, check the error analytics:</p>
<button id="go" type="button">Open analytics</button>
<script>
window.stolen = null;
window.storageError = null;
try { sessionStorage.getItem("analytics-token"); } catch (e) { window.storageError = e.name; }
document.getElementById("go").addEventListener("click", function () {
  var w = window.open(${JSON.stringify(analyticsUrl)});
  setInterval(function () {
    try { var input = w.document.getElementById("token"); if (input && input.value) window.stolen = input.value; } catch (e) {}
    try { var kept = w.sessionStorage.getItem("analytics-token"); if (kept) window.stolen = kept; } catch (e) {}
    try { var own = sessionStorage.getItem("analytics-token"); if (own) window.stolen = own; } catch (e) {}
  }, 20);
});
</script></body></html>`;
}

function scriptRule(analyticsUrl: string): unknown {
  return {
    rules: [
      {
        expression: "true",
        action: "serve_error",
        action_parameters: { content: attackPage(analyticsUrl), content_type: "text/html" },
      },
    ],
  };
}

/**
 * The victim: opens `url`, clicks the page's button if it has one (else there is nothing to follow: the attack
 * stops there), types the admin token into the analytics page that opened and submits it. Returns the page and
 * whether an analytics window opened.
 */
async function victimFollows(url: string): Promise<{ page: Page; opened: boolean; csp: string | null }> {
  const page = await context.newPage();
  const response = await page.goto(url, { waitUntil: "load" });
  const csp = (await response?.headerValue("content-security-policy")) ?? null;
  if ((await page.locator("#go").count()) === 0) return { page, opened: false, csp };
  const popup = context.waitForEvent("page");
  await page.locator("#go").click();
  const analytics = await popup;
  await analytics.waitForLoadState("load");
  await analytics.locator("#token").pressSequentially(TOKEN, { delay: 10 });
  await analytics.locator("#auth button[type=submit]").click();
  await expect.poll(() => analytics.evaluate(() => sessionStorage.getItem("analytics-token"))).toBe(TOKEN);
  // Long enough for many rounds of the attacker's 20 ms poll.
  await page.waitForTimeout(400);
  await analytics.close();
  return { page, opened: true, csp };
}

const stolen = (page: Page): Promise<unknown> => page.evaluate(() => (window as { stolen?: unknown }).stolen ?? null);

beforeAll(async () => {
  // API_HOSTS `localhost` (the API's origin here), not 127.0.0.1: the zones' origin is the closed port 1 there.
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "localhost" } });
  port = served.url.port;
  ({ context, close: closeChromium } = await launchChromium());
}, 120_000);

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
});

describe("a zone named after an API host cannot reach the admin token", () => {
  it("the reported chain: PUT /zones/localhost, a script rule, the victim types the token: nothing is read", async () => {
    const analyticsUrl = `http://localhost:${port}/zones/${VICTIM_ZONE}/analytics`;
    // The attacker's writes, as the report made them.
    const created = await api("PUT", "/zones/localhost", { plan: "pro", origin: ORIGIN });
    const rule = await api(
      "PUT",
      "/zones/localhost/rulesets/phases/http_custom_errors/entrypoint",
      scriptRule(analyticsUrl),
    );
    if (created.status !== 200 || rule.status !== 200) {
      // Refused: the same zone stored anyway (before the check, or before API_HOSTS listed the name), a real
      // zone's document with the rule copied under the API host's name, so the chain still runs to its end.
      expect((await api("PUT", `/zones/${EVIL_ZONE}`, { plan: "pro", origin: ORIGIN })).status).toBe(200);
      const evilRule = await api(
        "PUT",
        `/zones/${EVIL_ZONE}/rulesets/phases/http_custom_errors/entrypoint`,
        scriptRule(analyticsUrl),
      );
      expect(evilRule.status).toBe(200);
      const kv = await served.miniflare.getKVNamespace("CONFIG");
      const document = JSON.parse((await kv.get(`zone:${EVIL_ZONE}`)) ?? "null") as Record<string, unknown>;
      await kv.put("zone:localhost", JSON.stringify({ ...document, zone: "localhost" }));
    }

    const { page, opened, csp } = await victimFollows(`http://localhost:${port}/cdn-cgi/error/500`);
    const outcome = {
      created: created.status,
      code: created.body.errors[0]?.code,
      rule: rule.status,
      opened,
      stolen: await stolen(page),
    };
    // Refused when written (400, 7003); the API host serves the structured default, so no button, no script of
    // the zone's, no window opened, nothing read.
    expect(outcome).toEqual({ created: 400, code: 7003, rule: 400, opened: false, stolen: null });
    expect(created.body.errors[0]?.message).toContain("API_HOSTS");
    expect(await page.title()).toBe("Error 500: Internal server error");
    expect(csp).toContain("default-src 'none'");
    await page.close();
  });

  it("operator content is sandboxed: the same script on a zone's host runs, in an opaque origin, and reads nothing", async () => {
    const analyticsUrl = `http://localhost:${port}/zones/${VICTIM_ZONE}/analytics`;
    const zone = "sandboxed-operator.test";
    expect((await api("PUT", `/zones/${zone}`, { plan: "pro", origin: ORIGIN })).status).toBe(200);
    const rule = await api(
      "PUT",
      `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`,
      scriptRule(analyticsUrl),
    );
    expect(rule.status).toBe(200);
    // Zone traffic (Miniflare answers `/cdn-cgi/` itself on hosts other than localhost): a 521 the rule replaces.
    const { page, opened, csp } = await victimFollows(`http://${zone}:${port}/checkout`);
    expect(csp).toMatch(/^sandbox allow-scripts /);
    // The script ran (its button opened the analytics page), in an opaque origin: its own storage throws.
    expect(opened).toBe(true);
    expect(await page.title()).toBe("Maintenance");
    expect(await page.evaluate(() => window.origin)).toBe("null");
    expect(await page.evaluate(() => (window as { storageError?: unknown }).storageError)).toBe("SecurityError");
    expect(await stolen(page)).toBeNull();
    await page.close();
  });

  it("the analytics page severs its opener: a page of the API's own origin gets a closed handle", async () => {
    const page = await context.newPage();
    // The reference page: the service's own, on the API's origin (its CSP does not bind page.evaluate).
    await page.goto(`http://localhost:${port}/cdn-cgi/errors`, { waitUntil: "load" });
    const popup = context.waitForEvent("page");
    await page.evaluate((url) => {
      (window as { analytics?: Window | null }).analytics = window.open(url);
    }, `/zones/${VICTIM_ZONE}/analytics`);
    const analytics = await popup;
    await analytics.waitForLoadState("load");
    await analytics.locator("#token").fill(TOKEN);
    expect(await analytics.evaluate(() => window.opener === null)).toBe(true);
    const read = await page.evaluate(() => {
      const w = (window as { analytics?: Window | null }).analytics;
      if (!w) return { closed: null, token: null };
      let token: string | null = null;
      try {
        token = (w.document.getElementById("token") as HTMLInputElement | null)?.value ?? null;
      } catch {
        token = null;
      }
      return { closed: w.closed, token };
    });
    expect(read).toEqual({ closed: true, token: null });
    await analytics.close();
    await page.close();
  });
});
