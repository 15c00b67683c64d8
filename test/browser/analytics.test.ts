/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * The analytics page in a real browser (docs/analytics.md "Page"): the real Worker on 127.0.0.1
 * (Miniflare, with its ZONE_ANALYTICS object), one zone configured through the real API whose origin (a raw TCP
 * server on 127.0.0.1 started here) fails in several ways, a burst of real zone traffic: origin resets (520,
 * answered by the zone's custom 500 page), garbage (502), a custom error rule, firewall blocks (1020), an origin 503
 * passed through, and a hostile path. Then the page at 360 and 1280 px, light and dark: the token is entered, and
 * the chart's rects, the legend and the top-codes table must show exactly the burst; a Ray lookup shows the record;
 * hostile values are text; no request leaves the page's origin, no console error, axe-core without serious or
 * critical violations. A second zone, a refused origin with a fallback, shows the avoided errors' line with exactly the
 * store's counts. Screenshots go to test/artifacts/, or with UPDATE_SCREENSHOTS=1 to docs/img/analytics/
 * (committed: README and docs/analytics.md show them).
 */
import { launchChromium } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { mkdir } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import { closedPort } from "../servers/ports.ts";

const root = resolve(import.meta.dirname, "../..");
// Every run writes its screenshots to test/artifacts/ (git-ignored); `UPDATE_SCREENSHOTS=1` writes the committed
// ones in docs/img/analytics/ instead, so a plain test run leaves the tree clean.
const shots = process.env.UPDATE_SCREENSHOTS === "1" ? join(root, "docs/img/analytics") : join(root, "test/artifacts");
const TOKEN = "browser-analytics-token";
const ZONE = "shop-analytics.test";
const RULE_ID = "0123456789abcdef0123456789abcdef";
const ALERT_NAME = "Checkout <img src=x onerror=window.pwned=3>";
const HOSTILE_PATH = "/<script>window.pwned=1</script>\u0001<img src=x onerror=window.pwned=2>";

/**
 * An origin that fails on purpose, by path: `/down` is an HTTP 503 (passed through unchanged, docs/custom-errors.md),
 * `/garbage` answers bytes that are not HTTP, anything else is reset after the request head.
 */
async function startFailingOrigin(): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const path = head.split(" ")[1] ?? "/";
      if (path.startsWith("/down")) {
        socket.end("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\ndown\n");
      } else if (path.startsWith("/garbage")) {
        socket.end("this is not HTTP at all\r\n\r\n");
      } else {
        socket.resetAndDestroy();
      }
    });
  });
  server.on("close", () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port };
}

let served: Served;
let origin: { server: Server; port: number };
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

/** What the burst sends, and the code each request is recorded under. */
const BURST: readonly { path: string; times: number; code: number | "garbage"; source: "edge" | "origin" }[] = [
  { path: "/reset", times: 4, code: 520, source: "edge" },
  { path: "/ruled", times: 2, code: 520, source: "edge" },
  { path: HOSTILE_PATH, times: 1, code: 520, source: "edge" },
  { path: "/garbage", times: 3, code: "garbage", source: "edge" },
  { path: "/admin", times: 2, code: 1020, source: "edge" },
  { path: "/down", times: 5, code: 503, source: "origin" },
];

/** Expected counts, filled from the responses (garbage is 502 or 520 by how workerd reads it, docs/origin.md). */
const expected = { codes: new Map<number, number>(), edge: 0, origin: 0, total: 0, ruledRay: "", hostileRay: "" };

beforeAll(async () => {
  origin = await startFailingOrigin();
  // API_HOSTS without 127.0.0.1: an origin is never an API host (docs/origin.md), and the zone's origin is loopback;
  // the page is opened on `localhost` (chromium resolves it itself, no DNS lookup).
  served = await serveWorker({ root, entry: "src/index.ts", bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "localhost" } });
  base = `http://localhost:${served.url.port}`;
  await api("PUT", `/zones/${ZONE}`, { plan: "pro", origin: `http://127.0.0.1:${origin.port}`, read_timeout: 5 });
  await api("PUT", `/zones/${ZONE}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
    rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block" }],
  });
  await api("PUT", `/zones/${ZONE}/rulesets/phases/http_custom_errors/entrypoint`, {
    rules: [
      {
        id: RULE_ID,
        expression: 'http.request.uri.path eq "/ruled"',
        action: "serve_error",
        action_parameters: { content: '{"ruled":true}', content_type: "application/json" },
      },
    ],
  });
  await api("PUT", `/zones/${ZONE}/custom_pages/500_errors`, {
    state: "customized",
    content: "<!DOCTYPE html><html><head><title>Down</title></head><body>::EDGE_ERROR_500S_BOX::</body></html>",
  });

  const sends = BURST.flatMap((b) => Array.from({ length: b.times }, () => b));
  const answers = await Promise.all(
    sends.map(async (b) => {
      const res = await served.miniflare.dispatchFetch(`http://${ZONE}${b.path}`);
      await res.arrayBuffer();
      return { b, status: res.status, ray: res.headers.get("Ray-ID") };
    }),
  );
  for (const { b, status, ray } of answers) {
    let code = b.code;
    if (code === "garbage") {
      expect([502, 520]).toContain(status);
      code = status;
    } else if (code !== 1020) expect(status).toBe(code);
    else expect(status).toBe(403);
    expected.codes.set(code, (expected.codes.get(code) ?? 0) + 1);
    expected[b.source] += 1;
    expected.total += 1;
    if (b.path === "/ruled" && ray !== null) expected.ruledRay = ray;
    if (b.path === HOSTILE_PATH && ray !== null) expected.hostileRay = ray;
  }
  expect(expected.ruledRay).toMatch(/^[0-9a-f]{16}$/);
  // The records are written after the responses, in batches (docs/analytics.md): wait until all are counted.
  for (let i = 0; i < 100; i++) {
    const r = await api("GET", `/zones/${ZONE}/analytics/errors`);
    if (r.total === expected.total) break;
    await new Promise((done) => setTimeout(done, 100));
  }

  // One alert policy, named with markup (docs/analytics.md "Alerts": the page shows it as text).
  await api("POST", `/zones/${ZONE}/analytics/alerts`, {
    name: ALERT_NAME,
    // A threshold the burst never reaches: the zone's alarm may evaluate it during the test (a burn rate would fire).
    kind: "threshold",
    metric: "errors",
    window_minutes: 5,
    above: 1_000_000,
    filter: { source: "origin" },
    webhook: { url: "https://hooks.example.com/edge-alerts" },
  });

  await mkdir(shots, { recursive: true });
  ({ context, close: closeChromium } = await launchChromium());
}, 120_000);

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
  await new Promise((r) => (origin ? origin.server.close(r) : r(undefined)));
});

interface Watched {
  readonly page: Page;
  readonly requests: string[];
  readonly problems: string[];
}

/**
 * The page's status line once the counts are drawn: every request of the burst was an error, so the share of the
 * zone's requests (docs/analytics.md "Requests and drops") is 100 %.
 */
function statusLine(): string {
  return `${expected.total} errors (100 % of ${expected.total} requests), minute steps.`;
}

/** The page with the token entered and the counts drawn. */
async function openWithToken(width: number, scheme: "light" | "dark", stack = "source"): Promise<Watched> {
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
  await page.goto(`${base}/zones/${ZONE}/analytics`, { waitUntil: "load" });
  expect(await page.locator("#status").textContent()).toBe("Enter a token to load the zone's errors.");
  await page.locator("#stack").selectOption(stack);
  await page.locator("#token").fill(TOKEN);
  await page.locator("#auth button[type=submit]").click();
  await expect.poll(() => page.locator("#status").textContent()).toBe(statusLine());
  return { page, requests, problems };
}

interface Drawn {
  readonly rects: { series: string; count: number; height: number }[];
  readonly legend: Record<string, string>;
  readonly codes: [string, string][];
  readonly paths: [string, string][];
  /** Each top code's link (absent for a code the catalog does not hold) and the title under it. */
  readonly codeLinks: { code: string; href: string | null; title: string }[];
  readonly scrollWidth: number;
  readonly innerWidth: number;
  readonly svgWidth: number;
  readonly background: string;
}

async function drawn(page: Page): Promise<Drawn> {
  return page.evaluate(() => {
    const cells = (id: string): [string, string][] =>
      [...document.querySelectorAll<HTMLElement>(`#${id} tr`)].map((tr) => [
        tr.dataset.key ?? "",
        tr.querySelector("td:last-child")?.textContent ?? "",
      ]);
    return {
      rects: [...document.querySelectorAll("#chart rect")].map((r) => ({
        series: r.getAttribute("data-series") ?? "",
        count: Number(r.getAttribute("data-count")),
        height: Number(r.getAttribute("height")),
      })),
      legend: Object.fromEntries(
        [...document.querySelectorAll("#legend li")].map((li) => [
          (li as HTMLElement).dataset.series ?? "",
          li.querySelector("strong")?.textContent ?? "",
        ]),
      ),
      codes: cells("codes"),
      paths: cells("paths"),
      codeLinks: [...document.querySelectorAll<HTMLElement>("#codes tr")].map((tr) => ({
        code: tr.dataset.key ?? "",
        href: tr.querySelector("a")?.getAttribute("href") ?? null,
        title: tr.querySelector(".title")?.textContent ?? "",
      })),
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      svgWidth: document.querySelector("#chart svg")?.getBoundingClientRect().width ?? 0,
      background: getComputedStyle(document.body).backgroundColor,
    };
  });
}

const sum = (rects: Drawn["rects"], series?: string): number =>
  rects.filter((r) => series === undefined || r.series === series).reduce((s, r) => s + r.count, 0);

describe.each([360, 1280] as const)("the analytics page at %i px", (width) => {
  it.each(["light", "dark"] as const)(
    "%s: the chart, legend and top codes show exactly the burst; screenshot",
    async (scheme) => {
      const { page, requests, problems } = await openWithToken(width, scheme);
      const d = await drawn(page);
      // The stacked series by source: each rect carries its count; their sums are the burst's.
      expect(sum(d.rects)).toBe(expected.total);
      expect(sum(d.rects, "edge")).toBe(expected.edge);
      expect(sum(d.rects, "origin")).toBe(expected.origin);
      expect(d.rects.every((r) => r.height > 0)).toBe(true);
      expect(d.legend).toEqual({ edge: String(expected.edge), origin: String(expected.origin) });
      // Top codes: every code with its exact count, most frequent first.
      const codes = [...expected.codes].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      expect(d.codes).toEqual(codes.map(([c, n]) => [String(c), String(n)]));
      // Drawn at the page's width: no horizontal scroll, the chart fills its column.
      expect(d.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(d.innerWidth);
      expect(d.svgWidth).toBeGreaterThan(Math.min(width, 1152) * 0.8);
      const [r = 0, g = 0, b = 0] = (d.background.match(/\d+/g) ?? []).map(Number);
      expect((r + g + b) / 3 < 128, `background ${d.background}`).toBe(scheme === "dark");

      // Ray lookup of the custom rule's error: its record.
      await page.locator("#ray-id").fill(expected.ruledRay);
      await page.locator("#ray button[type=submit]").click();
      await expect.poll(() => page.locator("#occurrence dd").first().textContent()).toBe(expected.ruledRay);
      const record = Object.fromEntries(
        await page.evaluate(() =>
          [...document.querySelectorAll("#occurrence dt")].map((dt) => [
            dt.textContent ?? "",
            dt.nextElementSibling?.textContent ?? "",
          ]),
        ),
      );
      expect(record.Code).toMatch(/^520\S/); // the code, then its title
      expect(record).toMatchObject({
        Status: "520",
        Source: "edge",
        "Answered by": `rule (${RULE_ID})`,
        Format: "json",
        Request: "GET /ruled",
      });

      // Nothing but the page and its own API; no console error (a CSP violation would be one).
      expect(requests.every((u) => u.startsWith(`${base}/zones/${ZONE}/`))).toBe(true);
      expect(problems).toEqual([]);
      await page.mouse.move(0, 0); // no hover state in the picture
      await page.screenshot({ path: join(shots, `analytics-${width}-${scheme}.png`), fullPage: true });
      await page.close();
    },
  );
});

describe("the analytics page, behaviour", () => {
  it("stacked by code, the rects' series are the codes with their exact counts", async () => {
    const { page } = await openWithToken(1280, "light", "code");
    const d = await drawn(page);
    for (const [code, n] of expected.codes) expect(sum(d.rects, String(code)), `code ${code}`).toBe(n);
    expect(Object.keys(d.legend).sort()).toEqual([...expected.codes.keys()].map(String).sort());
    await page.close();
  });

  it("hostile values are text: the path and its Ray lookup inject nothing", async () => {
    const { page, problems } = await openWithToken(1280, "light");
    const d = await drawn(page);
    const hostile = d.paths.find(([p]) => p.includes("script"));
    expect(hostile, JSON.stringify(d.paths)).toBeDefined();
    // The URL parser percent-encodes `<`, `>`, spaces and controls; whatever arrives is shown as the text it is.
    expect(hostile![0]).toContain("%3Cscript%3E");
    expect(hostile![1]).toBe("1");
    await page.locator("#ray-id").fill(expected.hostileRay);
    await page.locator("#ray button[type=submit]").click();
    await expect.poll(() => page.locator("#occurrence dd").first().textContent()).toBe(expected.hostileRay);
    const state = await page.evaluate(() => ({
      pwned: (window as unknown as { pwned?: number }).pwned ?? null,
      scripts: document.querySelectorAll("script:not([type='application/json'])").length,
      dataBlocks: document.querySelectorAll("script[type='application/json']").length,
      images: document.querySelectorAll("img").length,
      request: [...document.querySelectorAll("#occurrence dt")].find((dt) => dt.textContent === "Request")
        ?.nextElementSibling?.textContent,
    }));
    expect(state).toMatchObject({ pwned: null, scripts: 1, dataBlocks: 1, images: 0 });
    expect(state.request).toMatch(/^GET \/%3Cscript%3E/);
    expect(state.request).not.toMatch(/[\u0000-\u001f]/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a wrong token is refused in words and forgotten; a good one is shown in use; Forget removes it", async () => {
    const page = await context.newPage();
    await page.goto(`${base}/zones/${ZONE}/analytics`);
    expect(await page.locator("#token-state").isHidden()).toBe(true);
    await page.locator("#token").fill("not-a-token");
    await page.locator("#auth button[type=submit]").click();
    const problem = page.locator("#token-problem");
    await expect.poll(() => problem.textContent()).toMatch(/^This token was not accepted: /);
    expect(await problem.isVisible()).toBe(true);
    expect(await problem.textContent()).not.toMatch(/10000|Bearer|Authorization/);
    // A refused token is not kept, and the form is back to enter another.
    expect(await page.evaluate(() => sessionStorage.getItem("analytics-token"))).toBeNull();
    expect(await page.locator("#auth").isVisible()).toBe(true);
    expect(await page.locator("#token-state").isHidden()).toBe(true);

    await page.locator("#token").fill(TOKEN);
    await page.locator("#auth button[type=submit]").click();
    await expect.poll(() => page.locator("#status").textContent()).toBe(statusLine());
    expect(await page.locator("#token-state").isVisible()).toBe(true);
    expect(await page.locator("#token-state").textContent()).toContain(`Token in use ending in …${TOKEN.slice(-4)}`);
    expect(await page.locator("#auth").isHidden()).toBe(true);
    expect(await problem.isHidden()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("analytics-token"))).toBe(TOKEN);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    await page.locator("#forget").click();
    expect(await page.evaluate(() => sessionStorage.getItem("analytics-token"))).toBeNull();
    expect(await page.locator("#auth").isVisible()).toBe(true);
    await page.close();
  });

  it("at 360 px the window, stack-by and refresh controls sit on one line, each label above its own select", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const { page } = await openWithToken(360, scheme);
      const boxes = await page.evaluate(() => {
        const box = (selector: string): { top: number; bottom: number; left: number; right: number } => {
          const r = document.querySelector(selector)!.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
        };
        return {
          window: box("#window"),
          stack: box("#stack"),
          refresh: box("#range button[type=submit]"),
          windowLabel: box("label[for=window]"),
          stackLabel: box("label[for=stack]"),
          width: document.documentElement.clientWidth,
        };
      });
      // One line: the three controls share their vertical extent and follow each other left to right.
      for (const b of [boxes.stack, boxes.refresh]) {
        expect(Math.abs(b.top - boxes.window.top), JSON.stringify(boxes)).toBeLessThanOrEqual(1);
        expect(Math.abs(b.bottom - boxes.window.bottom), JSON.stringify(boxes)).toBeLessThanOrEqual(1);
      }
      expect(boxes.window.right).toBeLessThanOrEqual(boxes.stack.left);
      expect(boxes.stack.right).toBeLessThanOrEqual(boxes.refresh.left);
      expect(boxes.refresh.right).toBeLessThanOrEqual(boxes.width);
      // Each label directly above its own select, never left behind on the line before.
      for (const [label, control] of [
        [boxes.windowLabel, boxes.window],
        [boxes.stackLabel, boxes.stack],
      ] as const) {
        expect(label.bottom).toBeLessThanOrEqual(control.top + 1);
        expect(control.top - label.bottom).toBeLessThan(12);
        expect(label.left).toBeGreaterThanOrEqual(control.left - 1);
        expect(label.right).toBeLessThanOrEqual(control.right + 1);
      }
      // The select shows its chosen option whole (not clipped by a squeezed width).
      const clipped = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLSelectElement>("#range select")].map((sel) => {
          const probe = document.createElement("span");
          probe.style.font = getComputedStyle(sel).font;
          probe.textContent = sel.selectedOptions[0]?.textContent ?? "";
          document.body.append(probe);
          const need = probe.getBoundingClientRect().width;
          probe.remove();
          return sel.clientWidth - need;
        }),
      );
      for (const room of clipped) expect(room).toBeGreaterThan(8);
      await page.close();
    }
  });

  it("each top code of the catalog links to its reference page, which the Worker serves", async () => {
    const { page } = await openWithToken(1280, "light");
    const d = await drawn(page);
    for (const link of d.codeLinks) {
      const code = Number(link.code);
      if (code === 503) {
        // An origin's 503 passed through: not a code of the catalog, so no link, and said so.
        expect(link.href).toBeNull();
        expect(link.title).toBe("the origin's status, passed through");
        continue;
      }
      expect(link.href, link.code).toBe(`${base}/cdn-cgi/errors/${link.code}`);
      expect(link.title.length).toBeGreaterThan(3);
      const res = await served.miniflare.dispatchFetch(link.href!, { headers: { Accept: "text/html" } });
      expect(res.status, link.href!).toBe(200);
      expect(await res.text()).toContain(link.title);
    }
    // Following a link in the page opens the reference of that code.
    await page.locator("#codes a", { hasText: "1020" }).click();
    await page.waitForURL(`${base}/cdn-cgi/errors/1020`);
    expect(await page.locator("h1").textContent()).toContain("1020");
    await page.close();
  });

  it("axe-core: no serious or critical violations, light and dark, with data drawn", async () => {
    // One load, audited in each scheme: the page's schemes are its stylesheet's media query alone (no script reads
    // it), which applies to the page as it is, and the audit reads the styles as they are then.
    const { page } = await openWithToken(360, "light");
    await page.locator("#ray-id").fill(expected.ruledRay);
    await page.locator("#ray button[type=submit]").click();
    await expect.poll(() => page.locator("#occurrence dd").count()).toBeGreaterThan(1);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await seriousAxeViolations(page);
      expect(violations, scheme).toEqual([]);
    }
    await page.close();
  });

  it("the zone's alert policies and their state", async () => {
    const { page, problems } = await openWithToken(360, "light");
    await expect.poll(() => page.locator("#alerts tr").count()).toBe(1);
    const row = page.locator("#alerts tr");
    expect(await row.getAttribute("data-state")).toBe("ok");
    expect(await row.locator("strong").textContent()).toBe(ALERT_NAME);
    expect(await row.locator(".badge").textContent()).toBe("OK");
    expect(await row.locator(".title").first().textContent()).toBe("≥ 1000000 errors over 5 min (source origin)");
    expect(await page.locator("#alerts-status").textContent()).toBe("0 of 1 firing.");
    expect(await page.locator("#alerts img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });

  it.each([360, 1280] as const)(
    "at %i px the state's 'since … UTC' breaks only between words, on one line at 1280",
    async (width) => {
      const { page } = await openWithToken(width, "light");
      await expect.poll(() => page.locator("#alerts tr").count()).toBe(1);
      const since = page.locator("#alerts tr .title").nth(1);
      expect(await since.textContent()).toMatch(/^since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      // The date and the time are never broken inside (one box each), and at 1280 px the whole fits one line.
      const boxes = await since.locator(".stamp").evaluateAll((stamps) => stamps.map((s) => s.getClientRects().length));
      expect(boxes).toEqual([1, 1]);
      const lines = await since.evaluate((e) =>
        Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)),
      );
      if (width === 1280) expect(lines).toBe(1);
      else expect(lines).toBeLessThanOrEqual(2);
      await page.close();
    },
  );
});

describe("the analytics page, avoided errors", () => {
  const AVOIDED_ZONE = "shop-avoided.test";
  let fallback: HttpServer | undefined;
  /** What the store counted: the page must say exactly this. */
  let stored = { avoided: { total: 0, by_kind: { stale: 0, failover: 0, circuit_open: 0 } }, requests: 0 };

  beforeAll(async () => {
    // A refused origin and a fallback that answers: each request is one origin failure the visitor never saw.
    fallback = createHttpServer((_, res) => res.end("from the fallback\n"));
    await new Promise<void>((r) => fallback?.listen(0, "127.0.0.1", r));
    const address = fallback.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    await api("PUT", `/zones/${AVOIDED_ZONE}`, {
      plan: "pro",
      origin: `http://127.0.0.1:${await closedPort()}`,
      fallback_origin: `http://127.0.0.1:${address.port}`,
    });
    // The isolate hands its tallies over with a later request, at most once a second (docs/analytics.md "Requests
    // and drops"): requests go on until the store has counted three; those still held then stay held (no traffic).
    const send = async (): Promise<void> => {
      const res = await served.miniflare.dispatchFetch(`http://${AVOIDED_ZONE}/p`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 100; i++) {
      await send();
      const r = await api("GET", `/zones/${AVOIDED_ZONE}/analytics/errors`);
      stored = { avoided: r.avoided as typeof stored.avoided, requests: r.requests as number };
      if (stored.avoided.total >= 3) break;
      await new Promise((done) => setTimeout(done, 250));
    }
    expect(stored.avoided.total).toBeGreaterThanOrEqual(3);
    expect(stored.avoided.by_kind).toMatchObject({ stale: 0, circuit_open: 0 });
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => (fallback ? fallback.close(r) : r(undefined)));
  });

  it("says how many origin failures were answered anyway, and by what, beside the errors visitors saw", async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/zones/${AVOIDED_ZONE}/analytics`, { waitUntil: "load" });
    expect(await page.locator("#avoided").isHidden()).toBe(true);
    await page.locator("#token").fill(TOKEN);
    await page.locator("#auth button[type=submit]").click();
    const { requests } = stored;
    const failovers = stored.avoided.by_kind.failover;
    await expect
      .poll(() => page.locator("#status").textContent())
      .toBe(`0 errors (0 % of ${requests} requests), minute steps.`);
    expect(await page.locator("#avoided").textContent()).toBe(
      `${failovers} origin failures answered anyway in this range (0 from a stale copy, ${failovers} by the fallback origin); visitors saw 0 errors.`,
    );
    expect(await page.locator("#avoided").isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(shots, "analytics-avoided-1280-light.png") });
    await page.close();
  });

  it("shows nothing about avoided errors where none were", async () => {
    const { page } = await openWithToken(360, "light");
    expect(await page.locator("#avoided").isHidden()).toBe(true);
    await page.close();
  });
});
