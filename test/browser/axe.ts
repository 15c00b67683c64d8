/**
 * The browser tests' accessibility audit: axe-core injected through the DevTools protocol (a page's strict CSP
 * rightly refuses an added <script>), then its serious and critical violations as readable lines.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Page } from "playwright-core";

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

let source: Promise<string> | undefined;

/**
 * The serious and critical axe-core violations of the page as it is now (empty when it passes). axe-core is injected
 * once per loaded document: a second audit of the same page (in the other colour scheme) reuses it.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  source ??= readFile(resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await source);
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: () => Promise<AxeResult> } }).axe.run();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
}
