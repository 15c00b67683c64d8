/**
 * One tab per file, navigated from load to load, and what each load requested and reported: a new page per load
 * starts a renderer each time (0.3–0.9 s per page on a 2-core machine), a navigation in the same tab does not.
 * For the files whose pages keep no state between loads (docs/development.md "How long the suite takes").
 */
import type { BrowserContext, Page } from "playwright-core";

/** One load: the tab, the URLs it requested, the console errors and warnings and page errors, its status. */
export interface Watched {
  readonly page: Page;
  readonly requests: string[];
  readonly problems: string[];
  readonly status: number | undefined;
}

/** `open(url, width, scheme)` in the one tab of `context` (made on first use; it closes with the context). */
export function oneTab(
  context: () => BrowserContext,
): (url: string, width: number, scheme: "light" | "dark") => Promise<Watched> {
  let tab: Page | undefined;
  let seen: { requests: string[]; problems: string[] } = { requests: [], problems: [] };
  return async (url, width, scheme) => {
    if (tab === undefined) {
      tab = await context().newPage();
      tab.on("request", (r) => seen.requests.push(r.url()));
      tab.on("console", (m) => {
        // An error page is served with its error status, which chromium reports; anything else (a CSP violation,
        // a script error) is a problem.
        if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())) return;
        if (m.type() === "error" || m.type() === "warning") seen.problems.push(m.text());
      });
      tab.on("pageerror", (e) => seen.problems.push(String(e)));
    }
    await tab.setViewportSize({ width, height: 800 });
    await tab.emulateMedia({ colorScheme: scheme });
    // A fresh record per load: what the page before it did is not this page's.
    seen = { requests: [], problems: [] };
    const { requests, problems } = seen;
    const res = await tab.goto(url, { waitUntil: "load" });
    return { page: tab, requests, problems, status: res?.status() };
  };
}
