/** What every browser test launches Chromium with, and the sizes and colour schemes each page is checked in. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { CHROMIUM_PATH } from "./ensure-chromium.ts";

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

/** A phone and a desktop (docs/errors.md: readable at 320 px wide and on a desktop). */
export const WIDTHS = [360, 1280] as const;
export const SCHEMES = ["light", "dark"] as const;

/**
 * Chromium (Debian's, headless, `CHROMIUM_FLAGS`) in a fresh profile at a desktop viewport; `close()` ends it and
 * removes the profile.
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "edge-errors-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
