/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the page: they need the DOM types.
/**
 * The error box inside operators' custom error pages, in a real browser (docs/errors.md: the box
 * "brings its own isolated styles and renders the same inside any page"; docs/custom-errors.md step 2). The real Worker on
 * 127.0.0.1 (Miniflare), zones configured through the real API, errors from real zone traffic: a 521 (the zone's
 * origin is a closed loopback port) for `500_errors` and a firewall block (1020) for `1000_errors`. Each class is
 * rendered inside the example zone's page (fixtures/example-zone.json) and inside a hostile page (resets, `svg`,
 * `header`, `div` rules, `!important`, a page-level `color-scheme`, a 10 px root font, a strict CSP), at 360 and
 * 1280 px, light and dark, and measured against the default page's box for the same code: icon sizes, box height,
 * key colours (computed styles), page height; axe-core, no request beyond the page, no console error (a CSP
 * violation is one). The box's colours follow the page (docs/errors.md "The error box in an operator's page"): light
 * in a page that does not declare dark support, whatever the reader's system says; light or dark as the reader's
 * system says in a page that declares `light dark` (the example page plus a `<meta name="color-scheme">`, and other
 * declarations below). Screenshots go to test/artifacts/ (`custom-*.png`).
 */
import { launchChromium, WIDTHS, SCHEMES } from "./chromium.ts";
import { seriousAxeViolations } from "./axe.ts";
import { oneTab } from "./one-tab.ts";
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWorker, type Served } from "../../bench/lib/serve.ts";
import { BOX_STYLE } from "../../src/errors/page.ts";

const root = resolve(import.meta.dirname, "../..");
const artifacts = join(root, "test/artifacts");

const TOKEN_500 = "::EDGE_ERROR_500S_BOX::";
const TOKEN_1000 = "::EDGE_ERROR_1000S_BOX::";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("base64");

/**
 * Everything a page can throw at the box: resets of every property, sizes on every `svg`, colours on `header`,
 * borders and backgrounds on every `div`, hidden `section`s, `!important` everywhere, undefined custom elements
 * hidden (a common anti-flash rule), rules on the box's own element name, a page-level `color-scheme`, a 10 px
 * root font (`rem`), right-to-left text. Its CSP is strict: its own style and the box's, by hash, nothing else.
 */
const HOSTILE_STYLE = `:root{color-scheme:only light;font-size:10px}
*,*::before,*::after{all:revert}
html{background:#fff;color:#222;font:1.6rem/1.4 Georgia,serif}
body{margin:0;direction:rtl}
svg{width:100%!important;height:auto!important;color:magenta!important}
header{background:#b45309!important;color:#fff!important;padding:2rem!important;border:0!important}
div{border:3px dashed red!important;padding:20px!important;margin:10px!important;background:yellow!important}
section{display:none!important}
h1,h2{font-size:5rem!important;color:#c00!important;text-transform:uppercase!important}
p,dd,dt,li{color:#050!important;font-size:2rem}
*{letter-spacing:.1em!important;line-height:2!important}
*::before{content:"\\2605"!important}
:not(:defined){display:none!important;opacity:.2!important}
edge-error-box{display:inline!important;font-size:40px!important;color:purple!important;zoom:2!important;filter:invert(1)!important;--card:red!important;--fg:red!important}
main{max-width:46rem;margin:0 auto;padding:1.6rem}`;

/** `boxHash`: the API's `box_style_hash`, the source an operator adds to their CSP for the box's style. */
function hostilePage(token: string, boxHash: string): string {
  const csp = `default-src 'none'; style-src 'sha256-${sha256(HOSTILE_STYLE)}' ${boxHash}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>Hostile shop</title>
<style>${HOSTILE_STYLE}</style>
</head>
<body>
<header><strong>Hostile shop</strong></header>
<main>
<p>Something went wrong. Reference ::RAY_ID::.</p>
${token}
</main>
</body>
</html>
`;
}

/** The example page declaring dark support the way most pages do: a `<meta name="color-scheme">` in its head. */
const withMeta = (page: string, content: string): string =>
  page.replace("<title>", `<meta name="color-scheme" content="${content}">\n<title>`);
/** The example page with a `color-scheme` declaration added to its own stylesheet. */
const withRule = (page: string, rule: string): string => page.replace("<style>", `<style>${rule}`);

interface Example {
  readonly custom_pages: { readonly "500_errors": string };
}

let served: Served;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let base: string;
let port: string;
let examplePage: string;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await served.miniflare.dispatchFetch(`http://localhost${path}`, {
    method,
    headers: { Authorization: "Bearer browser-test-token", "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { result: Record<string, unknown> }).result;
}

/** A zone whose origin refuses connections (521) and whose firewall blocks `/admin` (1020), with both pages. */
async function zone(name: string, page500: string, page1000: string, rules: readonly unknown[] = []): Promise<void> {
  await api("PUT", `/zones/${name}`, { plan: "pro", origin: "http://127.0.0.1:1", connect_timeout: 2 });
  await api("PUT", `/zones/${name}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
    rules: [{ expression: 'starts_with(http.request.uri.path, "/admin")', action: "block" }],
  });
  await api("PUT", `/zones/${name}/custom_pages/500_errors`, { state: "customized", content: page500 });
  await api("PUT", `/zones/${name}/custom_pages/1000_errors`, { state: "customized", content: page1000 });
  if (rules.length > 0) await api("PUT", `/zones/${name}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
}

const RULE_HTML = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Back soon</title></head><body><main><h1>Back soon</h1><p>The shop is restocking. Reference ::RAY_ID::.</p></main></body></html>`;

beforeAll(async () => {
  await mkdir(artifacts, { recursive: true });
  // API_HOSTS without 127.0.0.1: an origin is never an API host (docs/origin.md), and the zones' origin is loopback.
  served = await serveWorker({
    root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN: "browser-test-token", API_HOSTS: "localhost" },
  });
  base = served.url.href.replace(/\/$/, "");
  port = served.url.port;
  const example = JSON.parse(await readFile(join(root, "fixtures/example-zone.json"), "utf8")) as Example;
  examplePage = example.custom_pages["500_errors"];
  // The example zone has a 500-class page only; its 1000-class twin is the same page with the other token.
  await zone("example.test", examplePage, examplePage.replace(TOKEN_500, TOKEN_1000));
  const darkPage = withMeta(examplePage, "light dark");
  await zone("declares-dark.test", darkPage, darkPage.replace(TOKEN_500, TOKEN_1000));
  for (const { host, page } of DECLARATIONS) {
    const declared = page(examplePage);
    await zone(host, declared, declared.replace(TOKEN_500, TOKEN_1000));
  }
  const { box_style_hash: boxHash } = await api("GET", "/zones/example.test/custom_pages/500_errors");
  expect(boxHash).toBe(`'sha256-${sha256(BOX_STYLE)}'`);
  await zone("hostile.test", hostilePage(TOKEN_500, String(boxHash)), hostilePage(TOKEN_1000, String(boxHash)), [
    {
      expression: 'http.request.uri.path eq "/rule"',
      action: "serve_error",
      action_parameters: { content: RULE_HTML, content_type: "text/html" },
    },
  ]);
  ({ context, close: closeChromium } = await launchChromium());
});

afterAll(async () => {
  await closeChromium?.();
  await served?.dispose();
});

const open = oneTab(() => context);

/** What a person compares between two boxes, read from the box's shadow tree when it has one. */
interface BoxMetrics {
  readonly shadow: boolean;
  readonly icons: number[];
  readonly retryIcon: number;
  readonly boxHeight: number;
  readonly boxWidth: number;
  readonly pageHeight: number;
  readonly scrollWidth: number;
  readonly innerWidth: number;
  readonly colours: Record<string, string>;
  readonly h1: string;
  readonly states: string[];
  readonly ray: string;
}

function metrics(page: Page): Promise<BoxMetrics> {
  return page.evaluate(() => {
    const host = document.querySelector("edge-error-box");
    const scope: ParentNode = host?.shadowRoot ?? document;
    const one = (selector: string): Element => {
      const found = scope.querySelector(selector);
      if (found === null) throw new Error(`no ${selector} in the box`);
      return found;
    };
    const style = (selector: string): CSSStyleDeclaration => getComputedStyle(one(selector));
    const box = one(".edge-error-box").getBoundingClientRect();
    return {
      shadow: host?.shadowRoot != null,
      icons: [...scope.querySelectorAll(".hop svg")].map((s) => Math.round(s.getBoundingClientRect().width)),
      retryIcon: Math.round(one(".retry svg").getBoundingClientRect().width),
      boxHeight: Math.round(box.height),
      boxWidth: Math.round(box.width),
      pageHeight: document.documentElement.scrollHeight,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      colours: {
        "header.card background": style("header.card").backgroundColor,
        "header.card border": style("header.card").borderTopColor,
        "h1 colour": style("h1").color,
        "h1 font-size": style("h1").fontSize,
        "eyebrow colour": style(".eyebrow").color,
        "website hop colour": style(".hop:last-child").color,
        "website state background": style(".hop:last-child .state").backgroundColor,
        "retry background": style(".retry").backgroundColor,
        "dt colour": style("dt").color,
        "body text font": `${style("p").fontSize} ${style("p").fontFamily}`,
        "ray code background": style(".ray code").backgroundColor,
      },
      h1: one("h1").textContent ?? "",
      states: [...scope.querySelectorAll(".hop .state")].map((s) => s.textContent ?? ""),
      ray: one(".ray code").textContent ?? "",
    };
  });
}

/**
 * The default page's box for a code at a width and scheme, measured once per file: every case at those settings
 * compares against the same page.
 */
const references = new Map<string, BoxMetrics>();
async function reference(code: number, width: number, scheme: "light" | "dark"): Promise<BoxMetrics> {
  const key = `${code} ${width} ${scheme}`;
  const known = references.get(key);
  if (known !== undefined) return known;
  const measured = await metrics((await open(`${base}/cdn-cgi/error/${code}`, width, scheme)).page);
  references.set(key, measured);
  return measured;
}

const CASES = [
  { klass: "500_errors", code: 521, path: "/checkout", title: "Error 521: Web server is down" },
  { klass: "1000_errors", code: 1020, path: "/admin", title: "Error 1020: Access denied" },
] as const;
/**
 * `declaresDark`: whether the page declares dark support, so the box follows the reader's scheme; otherwise the box
 * stays light (the example page declares nothing; the hostile one says `only light`).
 */
const HOSTS = [
  { page: "example", host: "example.test", declaresDark: false },
  { page: "hostile", host: "hostile.test", declaresDark: false },
  { page: "declares-dark", host: "declares-dark.test", declaresDark: true },
] as const;

/**
 * More ways a page states its colour scheme (the example page, 500 class), and the box's scheme under a light and a
 * dark system: the browser resolves the declaration wherever the page makes it.
 */
const DECLARATIONS = [
  {
    host: "css-light-dark.test",
    what: ":root{color-scheme:light dark} in its stylesheet",
    page: (p: string) => withRule(p, ":root{color-scheme:light dark}"),
    box: { light: "light", dark: "dark" },
  },
  {
    host: "html-dark.test",
    what: "html{color-scheme:dark} (a dark-only page)",
    page: (p: string) => withRule(p, "html{color-scheme:dark}"),
    box: { light: "dark", dark: "dark" },
  },
  {
    host: "meta-light.test",
    what: '<meta name="color-scheme" content="light">',
    page: (p: string) => withMeta(p, "light"),
    box: { light: "light", dark: "light" },
  },
  {
    host: "body-light-dark.test",
    what: "body{color-scheme:light dark} (on an ancestor of the box, not the root)",
    page: (p: string) => withRule(p, "body{color-scheme:light dark}"),
    box: { light: "light", dark: "dark" },
  },
] as const;

describe.each(CASES)("$klass ($code) inside an operator's page", ({ klass, code, path, title }) => {
  describe.each(HOSTS)("$page page", ({ page: pageName, host, declaresDark }) => {
    it.each(WIDTHS.flatMap((w) => SCHEMES.map((s) => [w, s] as const)))(
      "%i px, %s: the box looks like the default page's box (in the page's scheme); screenshot",
      async (width, scheme) => {
        // The default page follows the reader; the box follows the page, which is light unless it declares dark.
        const boxScheme = declaresDark ? scheme : "light";
        const expected = await reference(code, width, boxScheme);

        const url = `http://${host}:${port}${path}`;
        const { page, requests, problems, status } = await open(url, width, scheme);
        expect(status).toBe(code === 521 ? 521 : 403);
        const got = await metrics(page);
        await page.screenshot({
          path: join(artifacts, `custom-${klass}-${pageName}-${width}-${scheme}.png`),
          fullPage: true,
        });

        expect(got.h1).toBe(title);
        expect(got.states).toEqual(expected.states);
        expect(got.ray).toMatch(/^[0-9a-f]{16}$/);
        // Icons: 40 px on the default page (648–736 px before); the retry icon 22 px.
        expect(expected.icons).toEqual([40, 40, 40]);
        expect(got.icons).toEqual(expected.icons);
        expect(got.retryIcon).toBe(expected.retryIcon);
        expect(got.colours).toEqual(expected.colours);
        // The box's height follows its width (the operator's column is a little narrower than ours): within 12 %.
        expect(
          Math.abs(got.boxHeight - expected.boxHeight) / expected.boxHeight,
          JSON.stringify([got, expected]),
        ).toBeLessThan(0.12);
        // The page: the box plus the operator's header and paragraph (3,682 px tall before, the default 1,107).
        expect(got.pageHeight).toBeLessThan(expected.pageHeight + 400);
        expect(got.scrollWidth, "horizontal scroll").toBeLessThanOrEqual(got.innerWidth);
        expect(requests).toEqual([url]);
        expect(problems).toEqual([]);
        expect(got.shadow, "the box is a shadow root").toBe(true);
      },
    );

    it("axe-core: no serious or critical violations, light and dark", async () => {
      // One load, audited in each scheme: the schemes differ only by the media query, which applies to the page
      // as it is (no reload needed), and the audit reads the styles as they are then.
      const { page } = await open(`http://${host}:${port}${path}`, 360, SCHEMES[0]);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        const violations = await seriousAxeViolations(page);
        expect(violations, scheme).toEqual([]);
      }
    });
  });
});

describe("the box's colour scheme follows the page's declaration (521 in the example page, 1280 px)", () => {
  const rows = [
    { host: "example.test", what: "no declaration (the example page)", box: { light: "light", dark: "light" } },
    { host: "hostile.test", what: ":root{color-scheme:only light}", box: { light: "light", dark: "light" } },
    {
      host: "declares-dark.test",
      what: '<meta name="color-scheme" content="light dark">',
      box: { light: "light", dark: "dark" },
    },
    ...DECLARATIONS,
  ] as const;
  it.each(rows.flatMap((row) => SCHEMES.map((system) => [row.what, system, row] as const)))(
    "%s, %s system",
    async (_what, system, { host, box }) => {
      const expected = await reference(521, 1280, box[system]);
      const { page, problems } = await open(`http://${host}:${port}/checkout`, 1280, system);
      const got = await metrics(page);
      expect(got.shadow).toBe(true);
      expect(got.colours, `the box is ${box[system]}`).toEqual(expected.colours);
      expect(problems).toEqual([]);
    },
  );
});

describe("around the box", () => {
  it.each(WIDTHS.flatMap((w) => SCHEMES.map((s) => [w, s] as const)))(
    "a custom rule's HTML content renders as the operator wrote it, %i px, %s; screenshot",
    async (width, scheme) => {
      const url = `http://hostile.test:${port}/rule`;
      const { page, requests, problems, status } = await open(url, width, scheme);
      expect(status).toBe(521);
      expect(await page.locator("h1").textContent()).toBe("Back soon");
      expect(await page.locator("p").textContent()).toMatch(/^The shop is restocking\. Reference [0-9a-f]{16}\.$/);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth ?? 0);
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(artifacts, `custom-rule-${width}-${scheme}.png`), fullPage: true });
    },
  );

  it("a client without declarative shadow DOM shows the box's fallback: complete, icons 24 px; screenshot", async () => {
    // Such a client keeps <template shadowrootmode> inert: the same page with the attribute renamed is what it parses.
    const real = await served.miniflare.dispatchFetch(`http://example.test/checkout`, {
      headers: { Accept: "text/html" },
    });
    const body = (await real.text()).replace('<template shadowrootmode="open">', "<template>");
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.route("http://old-browser.test/**", (route) =>
      route.fulfill({ status: real.status, headers: Object.fromEntries(real.headers), body }),
    );
    await page.goto("http://old-browser.test/checkout");
    const seen = await page.evaluate(() => {
      const host = document.querySelector("edge-error-box");
      return {
        shadow: host?.shadowRoot != null,
        h1: [...document.querySelectorAll("h1")].map((h) => h.textContent),
        icons: [...document.querySelectorAll("edge-error-box > div svg")].map((s) =>
          Math.round(s.getBoundingClientRect().width),
        ),
        ids: document.querySelectorAll("edge-error-box > div [id]").length,
        text: (host as HTMLElement | null)?.innerText ?? "",
        pageHeight: document.documentElement.scrollHeight,
      };
    });
    expect(seen.shadow).toBe(false);
    expect(seen.h1).toEqual(["Error 521: Web server is down"]);
    expect(seen.icons).toEqual([24, 24, 24, 24]);
    expect(seen.ids).toBe(0);
    expect(seen.text).toMatch(/What happened[\s\S]*What you can do[\s\S]*Ray ID\s+[0-9a-f]{16}/);
    await page.screenshot({ path: join(artifacts, "custom-500_errors-no-shadow-dom-1280-light.png"), fullPage: true });
    await page.close();
  });

  it("the box's content is escaped and nothing in it runs: no script, handler or image in the shadow tree", async () => {
    const { page } = await open(`http://hostile.test:${port}/checkout`, 1280, "light");
    const dom = await page.evaluate(() => {
      const shadow = document.querySelector("edge-error-box")?.shadowRoot;
      const all = [...(shadow?.querySelectorAll("*") ?? [])];
      return {
        scripts: all.filter((e) => e.tagName === "SCRIPT").length,
        images: all.filter((e) => e.tagName === "IMG").length,
        styles: all.filter((e) => e.tagName === "STYLE").length,
        handlers: all.flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith("on")).map((a) => a.name)),
        website: shadow?.querySelectorAll(".hop .sub")[2]?.textContent,
      };
    });
    expect(dom).toEqual({ scripts: 0, images: 0, styles: 1, handlers: [], website: "hostile.test" });
  });
});
