/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * The account page, errors by tag (docs/analytics.md "Errors by tag", "The account page"), in a real browser: the
 * real Worker on 127.0.0.1 (Miniflare), three zones of one account tagged through the real API (two teams, one
 * without `team`), on an HTTP origin started here that answers 200 or 503 by path, and a known mix of their
 * traffic. The page at 360 and 1280 px, light and dark: the token is entered, and the groups and zones tables must
 * show exactly the counts sent; a filter narrows the groups; no request leaves the page's origin, no console error,
 * axe-core finds no serious or critical violation. Screenshots go to test/artifacts/, or with UPDATE_SCREENSHOTS=1
 * to docs/img/analytics/.
 */
import { launchChromium } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { mkdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";

const root = resolve(import.meta.dirname, "../..");
const shots = process.env.UPDATE_SCREENSHOTS === "1" ? join(root, "docs/img/analytics") : join(root, "test/artifacts");
const TOKEN = "browser-by-tag-token";
const ACCOUNT = "0123456789abcdef0123456789abcdef";
/** Zone → its tags and what it is sent: healthy requests and origin 503s passed through. */
const ZONES = {
  "pay-bytag.test": { tags: { team: "payments", env: "prod" }, ok: 6, down: 2 },
  "checkout-bytag.test": { tags: { team: "payments", env: "prod" }, ok: 3, down: 1 },
  "search-bytag.test": { tags: { team: "search", env: "prod" }, ok: 1, down: 4 },
  "blog-bytag.test": { tags: { env: "staging" }, ok: 3, down: 1 },
} as const;

let served: Served;
let origin: Server;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let base: string;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await served.miniflare.dispatchFetch(`http://localhost${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: Record<string, unknown> }).result;
}

const sent = Object.values(ZONES).reduce((s, z) => ({ ok: s.ok + z.ok, down: s.down + z.down }), { ok: 0, down: 0 });

beforeAll(async () => {
  origin = createServer((req, res) => {
    res.writeHead(req.url?.startsWith("/down") ? 503 : 200, { "Content-Type": "text/plain" });
    res.end("origin\n");
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  const address = origin.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "localhost" } });
  base = `http://localhost:${served.url.port}`;
  for (const [zone, z] of Object.entries(ZONES)) {
    await api("PUT", `/zones/${zone}`, {
      plan: "pro",
      origin: `http://127.0.0.1:${address.port}`,
      account: { id: ACCOUNT },
    });
    await api("PUT", `/zones/${zone}/tags`, { resource_type: "zone", resource_id: zone, tags: z.tags });
    for (const [path, times] of [
      ["/", z.ok],
      ["/down", z.down],
    ] as const) {
      await Promise.all(
        Array.from({ length: times }, async () => {
          const res = await served.miniflare.dispatchFetch(`http://${zone}${path}`);
          await res.arrayBuffer();
        }),
      );
    }
  }
  // An isolate's held request counts leave with the first count after a one-second window, whatever its zone
  // (src/edge/analytics/recorder.ts TALLY_WAIT_MS): one request to a zone of no account, a second later, sends them.
  await api("PUT", "/zones/flush-bytag.test", { plan: "pro", origin: `http://127.0.0.1:${address.port}` });
  await new Promise((done) => setTimeout(done, 1100));
  await (await served.miniflare.dispatchFetch("http://flush-bytag.test/")).arrayBuffer();
  // Records and request tallies are written after the responses, batched (docs/analytics.md): wait for all.
  for (let i = 0; i < 100; i++) {
    const r = await api("GET", `/accounts/${ACCOUNT}/analytics/errors`);
    if (r.total === sent.down && r.requests === sent.ok + sent.down) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  await mkdir(shots, { recursive: true });
  ({ context, close: closeChromium } = await launchChromium());
}, 120_000);

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
  await new Promise((r) => (origin ? origin.close(r) : r(undefined)));
});

interface Watched {
  readonly page: Page;
  readonly requests: string[];
  readonly problems: string[];
}

/** Both analytics pages write a share one way: two decimals at most, no trailing zeros (src/api/kit/page-style.ts). */
const percent = (rate: number): string => `${Math.round(rate * 10000) / 100} %`;
const STATUS = `${sent.down} errors (${percent(sent.down / (sent.ok + sent.down))} of ${sent.ok + sent.down} requests) in 4 zones.`;

async function openWithToken(width: number, scheme: "light" | "dark"): Promise<Watched> {
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  await page.setViewportSize({ width, height: 900 });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${base}/accounts/${ACCOUNT}/analytics`, { waitUntil: "load" });
  expect(await page.locator("#status").textContent()).toBe("Enter a token to load the account's errors.");
  await page.locator("#token").fill(TOKEN);
  await page.locator("#auth button[type=submit]").click();
  await expect.poll(() => page.locator("#status").textContent()).toBe(STATUS);
  return { page, requests, problems };
}

/** The rows of a table body, each as its cells' text. */
const table = (page: Page, id: string): Promise<string[][]> =>
  page.evaluate(
    (tbody) =>
      [...document.querySelectorAll(`#${tbody} tr`)].map((tr) =>
        [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""),
      ),
    id,
  );

describe.each([360, 1280] as const)("the account page at %i px", (width) => {
  it.each(["light", "dark"] as const)("%s: groups and zones show exactly what was sent; screenshot", async (scheme) => {
    const { page, requests, problems } = await openWithToken(width, scheme);
    // Value, zones, errors, requests, error rate: search 4 of 5, payments 3 of 12, untagged 1 of 4.
    expect(await table(page, "groups")).toEqual([
      ["search", "1", "4", "5", "80 %"],
      ["payments", "2", "3", "12", "25 %"],
      ["untagged", "1", "1", "4", "25 %"],
    ]);
    // Each zone's name with its value under it.
    expect(await table(page, "zones")).toEqual([
      ["search-bytag.testsearch", "4", "5", "80 %"],
      ["pay-bytag.testpayments", "2", "8", "25 %"],
      ["blog-bytag.testuntagged", "1", "4", "25 %"],
      ["checkout-bytag.testpayments", "1", "4", "25 %"],
    ]);
    expect(await page.locator("#loss").textContent()).toBe("0 records dropped in this range.");
    // Each zone links to its own analytics page.
    expect(await page.locator("#zones a").first().getAttribute("href")).toBe("/zones/search-bytag.test/analytics");
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    expect(layout.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(layout.innerWidth);
    const [r = 0, g = 0, b = 0] = (layout.background.match(/\d+/g) ?? []).map(Number);
    expect((r + g + b) / 3 < 128, `background ${layout.background}`).toBe(scheme === "dark");
    expect(requests.every((u) => u.startsWith(`${base}/accounts/${ACCOUNT}/`))).toBe(true);
    expect(problems).toEqual([]);
    if (width === 360) expect(await seriousAxeViolations(page)).toEqual([]);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(shots, `errors-by-tag-${width}-${scheme}.png`), fullPage: true });
    await page.close();
  });
});

describe("the account page, behaviour", () => {
  it("a filter narrows the zones; a refused query says why in the API's words", async () => {
    const { page } = await openWithToken(1280, "light");
    await page.locator("#filters").fill("env=prod");
    await page.locator("#query button[type=submit]").click();
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe("7 errors (41.18 % of 17 requests) in 3 zones.");
    expect((await table(page, "groups")).map((row) => row[0])).toEqual(["search", "payments"]);
    await page.locator("#key").fill("bad key");
    await page.locator("#query button[type=submit]").click();
    await expect.poll(() => page.locator("#status").textContent()).toMatch(/^This query was refused: Invalid tag key/);
    expect(await table(page, "groups")).toEqual([]);
    await page.close();
  });

  it("no zone: says why (no zone matches the filters, or none belongs to the account), not '0 errors in 0 zones'", async () => {
    const { page } = await openWithToken(1280, "light");
    await page.locator("#filters").fill("env=nowhere");
    await page.locator("#query button[type=submit]").click();
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe("No zone of this account matches these filters.");
    expect(await table(page, "zones")).toEqual([]);
    await page.goto(`${base}/accounts/${"f".repeat(32)}/analytics`, { waitUntil: "load" }); // the token is kept
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe(
        "No zone belongs to this account: a zone joins one through the account.id of its settings (PUT or PATCH /zones/{zone}).",
      );
    await page.close();
  });

  it("a wrong token is refused in words and forgotten", async () => {
    const page = await context.newPage();
    await page.goto(`${base}/accounts/${ACCOUNT}/analytics`, { waitUntil: "load" });
    await page.locator("#token").fill("not-a-token");
    await page.locator("#auth button[type=submit]").click();
    await expect.poll(() => page.locator("#token-problem").textContent()).toMatch(/^This token was not accepted/);
    expect(await page.evaluate(() => sessionStorage.getItem("analytics-token"))).toBeNull();
    await page.close();
  });
});
