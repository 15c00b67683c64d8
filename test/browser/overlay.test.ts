/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * An error page overlaid by a custom error rule (docs/custom-errors.md "Overlay") in a real browser: the
 * real Worker served by Miniflare on 127.0.0.1, a zone configured through its API whose origin refuses connections
 * (a real 521), and a rule overlaying hostile texts, links and branding (a `data:` logo, an accent colour). What a
 * person would check: it reads at 320, 360 and 1280 px, light and dark, with no horizontal scroll; the page's CSP
 * lets the brand bar's stylesheet and the logo through and nothing else (no console error, no request beyond the
 * page); the operator's text is text (no element, handler or dialog of its making); axe-core finds nothing serious.
 */
import { launchChromium, SCHEMES } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { mkdir } from "node:fs/promises";
import { closedPort } from "../servers/ports.ts";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";

const root = resolve(import.meta.dirname, "../..");
const artifacts = join(root, "test/artifacts");
const TOKEN = "browser-test-token";
const ZONE = "overlay.test";
/** A 1×1 PNG: an inline logo, the only kind an overlay may carry. */
const LOGO =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const OVERLAY = {
  detail: 'We are restocking. <img src=x onerror=alert(1)><b>bold?</b> "quotes" & entities &amp;',
  what_you_should_do:
    "1. Wait a minute <script>alert(2)</script>.\n2. Check **the status page**.\n\nStill down? <a href=javascript:alert(3)>mail us</a>.",
  links: [
    { title: 'Status <b>page</b> " onmouseover=alert(4) x="', href: 'https://status.shop.example/?q="><script>' },
    {
      title: "A very long link title that must wrap on a phone rather than scroll sideways",
      href: "http://help.example/",
    },
  ],
  branding: { name: 'Shop <b>&</b> "Co"', logo_url: LOGO, accent_color: "#0a7cff" },
};

let served: Served;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let url: string;

/** Through the API host `api.test` (dispatched to the Worker, no lookup): 127.0.0.1 may then be the origin. */
async function put(path: string, body: unknown): Promise<void> {
  const res = await served.miniflare.dispatchFetch(`http://api.test${path}`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBe(200);
}

beforeAll(async () => {
  await mkdir(artifacts, { recursive: true });
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "api.test" } });
  await put(`/zones/${ZONE}`, {
    plan: "pro",
    origin: `http://127.0.0.1:${await closedPort()}`,
    connect_timeout: 2,
  });
  await put(`/zones/${ZONE}/rulesets/phases/http_custom_errors/entrypoint`, {
    rules: [
      { expression: "http.response.code eq 521", action: "serve_error", action_parameters: { overlay: OVERLAY } },
    ],
  });
  // `*.test` resolves to 127.0.0.1 (--host-resolver-rules): zone traffic for overlay.test, a real 521.
  url = `http://${ZONE}:${served.url.port}/checkout`;
  ({ context, close: closeChromium } = await launchChromium());
}, 60_000);

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
});

interface Watched {
  readonly page: Page;
  readonly requests: string[];
  readonly problems: string[];
  readonly dialogs: string[];
}

/**
 * The file's one tab, and what the load now in it requested, reported and opened as a dialog. One tab, navigated: a
 * new page per load starts a renderer each time (0.3–0.9 s per page on this 2-core machine), a navigation does not.
 */
let tab: Page | undefined;
let seen: { requests: string[]; problems: string[]; dialogs: string[] } = { requests: [], problems: [], dialogs: [] };

async function open(width: number, scheme: "light" | "dark"): Promise<Watched> {
  if (tab === undefined) {
    tab = await context.newPage();
    tab.on("request", (r) => {
      // The inline logo is not a request that leaves the page (no network), whatever the browser reports for it.
      if (!r.url().startsWith("data:")) seen.requests.push(r.url());
    });
    tab.on("console", (m) => {
      if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())) return;
      if (m.type() === "error" || m.type() === "warning") seen.problems.push(m.text());
    });
    tab.on("pageerror", (e) => seen.problems.push(String(e)));
    tab.on("dialog", async (d) => {
      seen.dialogs.push(d.message());
      await d.dismiss();
    });
  }
  await tab.setViewportSize({ width, height: 800 });
  await tab.emulateMedia({ colorScheme: scheme });
  // A fresh record per load: what the page before it did is not this page's.
  seen = { requests: [], problems: [], dialogs: [] };
  const { requests, problems, dialogs } = seen;
  const res = await tab.goto(url, { waitUntil: "load" });
  expect(res?.status()).toBe(521);
  return { page: tab, requests, problems, dialogs };
}

describe("an overlaid 521 page", () => {
  it.each([320, 360, 1280].flatMap((w) => SCHEMES.map((s) => [w, s] as const)))(
    "%i px, %s: no horizontal scroll, brand bar and logo shown, no request or console error; screenshot",
    async (width, scheme) => {
      const { page, requests, problems, dialogs } = await open(width, scheme);
      const layout = await page.evaluate(() => {
        const logo = document.querySelector<HTMLImageElement>(".brand img");
        const bar = document.querySelector(".brand");
        return {
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          h1: document.querySelectorAll("h1").length,
          logo: logo === null ? null : { loaded: logo.complete && logo.naturalWidth === 1, height: logo.height },
          barBorder: bar === null ? null : getComputedStyle(bar).borderBottomColor,
        };
      });
      expect(layout.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.h1).toBe(1);
      // The CSP allowed the brand stylesheet (the bar has the accent colour) and the data: logo (it loaded).
      expect(layout.barBorder).toBe("rgb(10, 124, 255)");
      expect(layout.logo).toEqual({ loaded: true, height: 40 });
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
      expect(dialogs).toEqual([]);
      await page.screenshot({ path: join(artifacts, `overlay-521-${width}-${scheme}.png`), fullPage: true });
    },
  );

  it("the operator's text is text: no element, handler, script or link of its making; the links are the rule's", async () => {
    const { page, dialogs } = await open(360, "light");
    await page.hover("text=Status").catch(() => undefined);
    const dom = await page.evaluate(() => ({
      images: [...document.images].map((i) => i.src.slice(0, 22)),
      scripts: [...document.scripts].filter((s) => s.type === "").length,
      bold: document.querySelectorAll("b").length,
      handlers: [...document.querySelectorAll("*")].flatMap((el) =>
        [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => a.name),
      ),
      links: [...document.querySelectorAll("#more-help ~ ul a")].map((a) => [a.textContent, a.getAttribute("href")]),
      anchors: [...document.querySelectorAll("a")].map((a) => a.getAttribute("href")),
      detail: document.querySelector("#what-happened + p")?.textContent,
      brand: document.querySelector(".brand span")?.textContent,
      island: JSON.parse(document.getElementById("edge-error")?.textContent ?? "null") as Record<string, unknown>,
    }));
    expect(dom.images).toEqual(["data:image/png;base64,"]);
    expect(dom.scripts).toBe(1);
    expect(dom.bold).toBe(0);
    expect(dom.handlers).toEqual([]);
    expect(dom.detail).toBe(OVERLAY.detail);
    expect(dom.brand).toBe(OVERLAY.branding.name);
    expect(dom.links).toEqual([
      [OVERLAY.links[0]!.title, "https://status.shop.example/?q=%22%3E%3Cscript%3E"],
      [OVERLAY.links[1]!.title, "http://help.example/"],
    ]);
    // Only the rule's links and the page's own "About error 521": the `<a href=javascript:…>` stayed text.
    expect(dom.anchors.filter((h) => h?.startsWith("javascript:"))).toEqual([]);
    expect(dom.island.detail).toBe(OVERLAY.detail);
    expect(dom.island.error_code).toBe(521);
    expect(dialogs).toEqual([]);
  });

  it("axe-core: no serious or critical violations, light and dark", async () => {
    // One load, audited in each scheme: the schemes differ only by the media query, which applies to the page as it
    // is (no reload needed), and the audit reads the styles as they are then.
    const { page } = await open(360, SCHEMES[0]);
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousAxeViolations(page), scheme).toEqual([]);
    }
  });
});
