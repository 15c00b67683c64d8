/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * The HTML error page and the error reference in a real browser (docs/errors.md): the real Worker
 * served by Miniflare on 127.0.0.1, Debian's chromium driven by playwright-core. Screenshots at 360 and 1280 px,
 * light and dark, go to test/artifacts/ (git-ignored) for a person to look at; the assertions are what a person
 * would check: no horizontal scroll, no request beyond the page, no CSP violation, an axe-core audit without
 * serious or critical violations, hostile zone and path values shown as text, a working copy button and filter.
 */
import { launchChromium, WIDTHS, SCHEMES } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { oneTab, type Watched } from "./one-tab.ts";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import { CATALOG } from "../../src/errors/catalog.ts";
import { errorFields, footerText } from "../../src/errors/fields.ts";
import { renderHtml } from "../../src/errors/render-html.ts";

const root = resolve(import.meta.dirname, "../..");
const artifacts = join(root, "test/artifacts");

let served: Served;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let base: string;

beforeAll(async () => {
  await mkdir(artifacts, { recursive: true });
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: "browser-test-token" } });
  base = served.url.href.replace(/\/$/, "");
  // A fresh profile per run (`--user-data-dir`): a reused one makes chromium try the network for its state.
  ({ context, close: closeChromium } = await launchChromium());
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
});

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
});

const inTab = oneTab(() => context);

/** `path` on 127.0.0.1, or a full URL (e.g. on a `*.test` zone, which --host-resolver-rules maps to 127.0.0.1). */
function open(path: string, width: number, scheme: "light" | "dark"): Promise<Watched> {
  return inTab(path.startsWith("http") ? path : base + path, width, scheme);
}

/** On 127.0.0.1: Miniflare, like wrangler dev, refuses `/cdn-cgi/*` for other hosts (docs/architecture.md). */
const PAGES = [
  { name: "error-522", path: "/cdn-cgi/error/522" },
  { name: "error-1015", path: "/cdn-cgi/error/1015" },
  { name: "reference", path: "/cdn-cgi/errors" },
  { name: "reference-1015", path: "/cdn-cgi/errors/1015" },
] as const;

describe.each(PAGES)("$name ($path)", ({ name, path: route }) => {
  const url = (): string => base + route;
  it.each(WIDTHS.flatMap((w) => SCHEMES.map((s) => [w, s] as const)))(
    "%i px, %s: no horizontal scroll, no request beyond the page, no console error; screenshot",
    async (width, scheme) => {
      const { page, requests, problems } = await open(url(), width, scheme);
      const layout = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        h1: document.querySelectorAll("h1").length,
        lang: document.documentElement.lang,
        background: getComputedStyle(document.body).backgroundColor,
      }));
      expect(layout.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.h1).toBe(1);
      expect(layout.lang).toBe("en");
      // The scheme is honoured: a dark page has a dark background, a light page a light one.
      const [r = 0, g = 0, b = 0] = (layout.background.match(/\d+/g) ?? []).map(Number);
      expect((r + g + b) / 3 < 128, `background ${layout.background}`).toBe(scheme === "dark");
      expect(requests).toEqual([url()]);
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(artifacts, `${name}-${width}-${scheme}.png`), fullPage: true });
    },
  );

  it("axe-core: no serious or critical violations, light and dark", async () => {
    // One load, audited in each scheme: the schemes differ only by the media query, which applies to the page as it
    // is (no reload needed), and the audit reads the styles as they are then.
    const { page } = await open(url(), 360, SCHEMES[0]);
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      // Injected through the DevTools protocol: the page's strict CSP rightly refuses an added <script>.
      const violations = await seriousAxeViolations(page);
      expect(violations, scheme).toEqual([]);
    }
  });
});

describe("error page behaviour", () => {
  it.each(PAGES.map((p) => [p.path]))("%s: no horizontal scroll at 320 px either (docs/errors.md)", async (path) => {
    const { page } = await open(path, 320, "light");
    const [scrollWidth, innerWidth] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      window.innerWidth,
    ]);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth ?? 0);
  });

  it("the copy button copies the ray ID, which is readable without scripts", async () => {
    const { page } = await open("/cdn-cgi/error/522", 360, "light");
    const ray = (await page.locator("#ray-id").textContent())?.trim() ?? "";
    expect(ray).toMatch(/^[0-9a-f]{16}$/);
    const button = page.locator("button[data-copy]");
    expect(await button.textContent()).toBe("Copy");
    await expect.poll(() => button.isVisible()).toBe(true);
    await button.click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(ray);
    expect(await button.textContent()).toBe("Copied");

    // Without JavaScript the ID is in the markup as text, and the button stays hidden (it would do nothing).
    const text = await (await fetch(base + "/cdn-cgi/error/522")).text();
    expect(text).toMatch(
      /<code id="ray-id" class="mono">[0-9a-f]{16}<\/code><button type="button" data-copy="ray-id" [^>]*\bhidden>/,
    );
  });

  it("the strip marks the website for a 5xx of the origin, and you as blocked for a 1xxx block", async () => {
    const states = async (path: string): Promise<string[]> => {
      const { page } = await open(path, 1280, "light");
      return page.locator(".path .hop .state").allTextContents();
    };
    expect(await states("/cdn-cgi/error/522")).toEqual(["Working", "Working", "Error"]);
    expect(await states("/cdn-cgi/error/1015")).toEqual(["Blocked", "Working", "Not reached"]);
    expect(await states("/cdn-cgi/error/500")).toEqual(["Working", "Error", "Not reached"]);
  });

  it("the guidance's numbered steps are a real list", async () => {
    const { page } = await open("/cdn-cgi/error/1015", 1280, "light");
    expect(await page.locator(".guidance ol > li").count()).toBe(3);
    expect(await page.locator(".guidance strong").first().textContent()).toBe("Wait and retry.");
  });

  it("a hostile path renders as text: the real Worker's 1xxx page for zone traffic, nothing injected", async () => {
    // `*.test` resolves to 127.0.0.1 (--host-resolver-rules), so this is zone traffic for `shop.test`: 1001.
    const url = `http://shop.test:${served.url.port}/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E/<script>alert(2)</script>?q="><b>x</b>`;
    await expectNothingInjected(url, "shop.test", async (page) => {
      const res = await page.goto(url);
      expect(res?.status()).toBe(409);
    });
  });

  it("a hostile zone renders as text: quotes, entities and markup in the zone stay text", async () => {
    // workerd refuses such a hostname before any Worker runs (Miniflare answers "Fetch API cannot load"), so the
    // Worker's own renderer makes the page for it, served with the Worker's own headers (its strict CSP) for a
    // 1xxx error on a real zone.
    const zone = `x"'&amp;&lt;img src=x onerror=alert(1)&gt;<b>y</b>=(1)\`.example`;
    const real = await served.miniflare.dispatchFetch("http://shop.test/", { headers: { Accept: "text/html" } });
    await real.text();
    const entry = CATALOG.find((e) => e.code === 1001)!;
    const body = renderHtml(
      errorFields(entry, {
        type: "http://shop.test/cdn-cgi/errors/1001",
        rayId: "0123456789abcdef",
        timestamp: "2026-04-24T09:22:40Z",
        zone,
        retryAfter: null,
        footer: footerText("the edge"),
        reachedOrigin: false,
      }),
    );
    await expectNothingInjected("http://hostile.test/page", zone, async (page) => {
      await page.route("http://hostile.test/**", (route) =>
        route.fulfill({ status: real.status, headers: Object.fromEntries(real.headers), body }),
      );
      await page.goto("http://hostile.test/page");
    });
  });
});

/** Loads a page and checks that it holds exactly the page's own elements: no image, extra script, handler or dialog. */
async function expectNothingInjected(url: string, zone: string, load: (page: Page) => Promise<void>): Promise<void> {
  const page = await context.newPage();
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  let dialogs = 0;
  page.on("dialog", async (d) => {
    dialogs++;
    await d.dismiss();
  });
  await load(page);
  const dom = await page.evaluate(() => ({
    images: document.images.length,
    // Executable scripts: the page's own; the problem+json island is a data block, read back below.
    scripts: [...document.scripts].filter((s) => s.type === "").length,
    island: (JSON.parse(document.getElementById("edge-error")?.textContent ?? "null") as { zone?: string } | null)
      ?.zone,
    bold: document.querySelectorAll("b").length,
    website: [...document.querySelectorAll("dt")].find((dt) => dt.textContent === "Website")?.nextElementSibling
      ?.textContent,
    handlers: [...document.querySelectorAll("*")].flatMap((el) =>
      [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => a.name),
    ),
  }));
  expect(dom).toEqual({ images: 0, scripts: 1, island: zone, bold: 0, website: zone, handlers: [] });
  expect(await page.locator(".path .hop .sub").nth(2).textContent()).toBe(zone);
  expect(dialogs).toBe(0);
  expect(requests).toEqual([new URL(url).href]);
  await page.close();
}

describe("reference behaviour", () => {
  it("filters by text in the page, without a request", async () => {
    const { page, requests } = await open("/cdn-cgi/errors", 1280, "light");
    const filter = page.getByLabel("Filter");
    await expect.poll(() => filter.isVisible()).toBe(true);
    const total = await page.locator("[data-code]").count();
    await filter.fill("rate limit");
    const visible = await page
      .locator("[data-code]:visible")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-code")));
    expect(visible).toContain("1015");
    expect(visible).not.toContain("522");
    expect(visible.length).toBeLessThan(total);
    expect(await page.locator("#count").textContent()).toBe(`${visible.length} of ${total} codes`);
    // A group with no match disappears, heading included.
    expect(await page.getByRole("heading", { name: "5xx errors" }).isVisible()).toBe(false);
    await filter.fill("");
    expect(await page.locator("[data-code]:visible").count()).toBe(total);
    expect(requests).toEqual([base + "/cdn-cgi/errors"]);
  });

  it("a code's page links back to the list and states status, retry, what happened, what to do and formats", async () => {
    const { page } = await open("/cdn-cgi/errors/1015", 1280, "light");
    const headings = await page.locator("h2").allTextContents();
    expect(headings).toEqual(["At a glance", "What happened", "What to do", "Formats"]);
    expect(await page.locator("dd").nth(3).textContent()).toMatch(/^Retryable: wait 30 seconds/);
    await page.getByRole("link", { name: "All error codes" }).click();
    await page.waitForURL(base + "/cdn-cgi/errors");
    expect(await page.locator("h1").textContent()).toBe("Error codes");
  });
});
