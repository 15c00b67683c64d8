/** What every browser test launches Chromium with, and the sizes and colour schemes each page is checked in. */

/** Headless, no sandbox (root in CI), and nothing that reaches the network on its own. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Zone traffic for `*.test` hosts goes to the local Worker; nothing else resolves (no DNS lookup leaves).
  "--host-resolver-rules=MAP *.test 127.0.0.1, EXCLUDE localhost",
];

/** A phone and a desktop (contract §1.3: readable at 320 px wide and on a desktop). */
export const WIDTHS = [360, 1280] as const;
export const SCHEMES = ["light", "dark"] as const;
