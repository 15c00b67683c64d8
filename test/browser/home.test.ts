/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * The front door in a real browser (docs/configuration.md "The front door"): the real Worker on 127.0.0.1
 * (Miniflare, `API_HOSTS=localhost`), three zones made through the API, then `/` at 360 and 1280 px, light and dark:
 * no horizontal scroll, the scheme's background, every link of the page resolving (this host's through the Worker,
 * the documents it names are files of this repository's docs/), a token entered lists the zones each linked to its analytics
 * page, a wrong token refused in words, the token never stored, axe-core without serious or critical violations.
 * Screenshots go to test/artifacts/.
 */
import { launchChromium } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";

const root = resolve(import.meta.dirname, "../..");
const shots = join(root, "test/artifacts");
const TOKEN = "browser-front-door-token";
const ZONES = ["alpha-door.test", "beta-door.test", "gamma-door.test"];

let served: Served;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let base: string;

beforeAll(async () => {
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "localhost" } });
  base = `http://localhost:${served.url.port}`;
  for (const zone of ZONES) {
    const res = await served.miniflare.dispatchFetch(`http://localhost/zones/${zone}`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ plan: zone.startsWith("beta") ? "free" : "pro", origin: "http://127.0.0.1:9" }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
  await mkdir(shots, { recursive: true });
  ({ context, close: closeChromium } = await launchChromium());
}, 120_000);

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
});

/**
 * The file's one tab, and what the load now in it reported. One tab, navigated: a new page per load starts a
 * renderer each time (0.3–0.9 s per page on this 2-core machine), a navigation does not. The front door keeps no
 * token in any storage (a test below checks it), so a load in the same tab starts as a first visit does.
 */
let tab: Page | undefined;
let seen: { problems: string[] } = { problems: [] };

async function open(width: number, scheme: "light" | "dark"): Promise<{ page: Page; problems: string[] }> {
  if (tab === undefined) {
    tab = await context.newPage();
    tab.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") seen.problems.push(m.text());
    });
    tab.on("pageerror", (e) => seen.problems.push(String(e)));
  }
  await tab.setViewportSize({ width, height: 900 });
  await tab.emulateMedia({ colorScheme: scheme });
  // A fresh record per load: what the page before it did is not this page's.
  seen = { problems: [] };
  const { problems } = seen;
  const res = await tab.goto(`${base}/`, { waitUntil: "load" });
  expect(res?.status()).toBe(200);
  return { page: tab, problems };
}

async function listZones(page: Page, token = TOKEN): Promise<void> {
  await page.locator("#token").fill(token);
  await page.locator("#auth button[type=submit]").click();
}

describe.each([360, 1280] as const)("the front door at %i px", (width) => {
  it.each(["light", "dark"] as const)(
    "%s: fits the width, lists the zones with a token; screenshot",
    async (scheme) => {
      const { page, problems } = await open(width, scheme);
      expect(await page.locator("h1").textContent()).toBe("Structured edge errors");
      await listZones(page);
      await expect.poll(() => page.locator("#status").textContent()).toBe("3 zones.");
      const shown = await page.evaluate(() => ({
        zones: [...document.querySelectorAll("#zones li")].map((li) => ({
          name: li.querySelector(".name")?.textContent ?? "",
          plan: li.querySelector(".chip")?.textContent ?? "",
          href: li.querySelector("a")?.getAttribute("href") ?? "",
        })),
        token: document.querySelector("#token-state")?.textContent ?? "",
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        background: getComputedStyle(document.body).backgroundColor,
      }));
      expect(shown.zones).toEqual(
        ZONES.map((name) => ({
          name,
          plan: name.startsWith("beta") ? "Free plan" : "Pro plan",
          href: `/zones/${name}/analytics`,
        })),
      );
      expect(shown.token).toContain(`Token in use ending in …${TOKEN.slice(-4)}`);
      expect(shown.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(shown.innerWidth);
      const [r = 0, g = 0, b = 0] = (shown.background.match(/\d+/g) ?? []).map(Number);
      expect((r + g + b) / 3 < 128, `background ${shown.background}`).toBe(scheme === "dark");
      expect(problems).toEqual([]);
      await page.mouse.move(0, 0); // no hover state in the picture
      await page.screenshot({ path: join(shots, `home-${width}-${scheme}.png`), fullPage: true });
    },
  );
});

describe("the front door, behaviour", () => {
  it("every link resolves through the Worker (200), all on this host; every document named is a file of docs/", async () => {
    const { page } = await open(1280, "light");
    const hrefs = await page.evaluate(() => [...document.querySelectorAll("a")].map((a) => a.href));
    expect(hrefs.length).toBeGreaterThanOrEqual(3); // the catalog, the OpenAPI document, the docs section
    // No public repository is known to hold the docs: they are named (docs/…), never linked off this host.
    const named = await page.evaluate(() => [...document.querySelectorAll(".docs code")].map((c) => c.textContent));
    expect(named.length).toBeGreaterThan(5);
    for (const path of named) expect(existsSync(join(root, path ?? "")), path ?? "").toBe(true);
    for (const href of hrefs) {
      expect(href.startsWith(`${base}/`), href).toBe(true);
      const res = await served.miniflare.dispatchFetch(href.replace(base, "http://localhost"));
      expect(res.status, href).toBe(200);
      await res.arrayBuffer();
    }
  });

  it("a listed zone's link opens its analytics page", async () => {
    const { page } = await open(1280, "light");
    await listZones(page);
    await page.locator("#zones a").nth(1).click();
    await page.waitForURL(`${base}/zones/${ZONES[1]}/analytics`);
    expect(await page.locator("h1").textContent()).toBe(`Errors served by ${ZONES[1]}`);
  });

  it("a wrong token is refused in words; the token is never stored and is gone on reload", async () => {
    const { page } = await open(360, "light");
    await listZones(page, "not-a-token");
    await expect.poll(() => page.locator("#token-problem").textContent()).toMatch(/^This token was not accepted: /);
    expect(await page.locator("#zones li").count()).toBe(0);
    expect(await page.locator("#auth").isVisible()).toBe(true);
    await listZones(page);
    await expect.poll(() => page.locator("#zones li").count()).toBe(3);
    expect(await page.locator("#token-problem").isHidden()).toBe(true);
    const storage = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length }));
    expect(storage).toEqual({ local: 0, session: 0 });
    await page.reload();
    expect(await page.locator("#zones li").count()).toBe(0);
    expect(await page.locator("#auth").isVisible()).toBe(true);
  });

  it("axe-core: no serious or critical violations, light and dark, with the zones listed", async () => {
    // One load, audited in each scheme: the schemes differ only by the media query, which applies to the page as it
    // is (no reload needed), and the audit reads the styles as they are then.
    const { page } = await open(360, "light");
    await listZones(page);
    await expect.poll(() => page.locator("#zones li").count()).toBe(3);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousAxeViolations(page), scheme).toEqual([]);
    }
  });
});
