/** "Where it broke": every category maps to a path, and the failing hop follows the category. */
import { describe, expect, it } from "vitest";
import { CATALOG, ERROR_CATEGORIES } from "../../../src/errors/catalog";
import { renderStrip } from "../../../src/errors/render-html";
import { whereItBroke } from "../../../src/errors/where-it-broke";

const states = (category: (typeof ERROR_CATEGORIES)[number]): string[] => whereItBroke(category).map((h) => h.state);

describe("whereItBroke", () => {
  it("5xx of the website's server mark the website; the edge's own 500 marks the edge", () => {
    for (const entry of CATALOG.filter((e) => e.code >= 520 && e.code <= 526)) {
      expect(states(entry.category), String(entry.code)).toEqual(["working", "working", "error"]);
    }
    expect(states(CATALOG.find((e) => e.code === 500)!.category)).toEqual(["working", "error", "not-reached"]);
  });

  it("blocks (access denied, rate limit, legal) mark you as blocked and the website as not reached", () => {
    for (const code of [1006, 1015, 1020, 1026]) {
      expect(states(CATALOG.find((e) => e.code === code)!.category), String(code)).toEqual([
        "blocked",
        "working",
        "not-reached",
      ]);
    }
  });

  it("every category has exactly one hop that is not working, in the order you → edge → website", () => {
    for (const category of ERROR_CATEGORIES) {
      const path = whereItBroke(category);
      expect(path.map((h) => h.kind)).toEqual(["you", "edge", "website"]);
      expect(
        path.filter((h) => h.state === "error" || h.state === "blocked"),
        category,
      ).toHaveLength(1);
    }
  });

  it("renders the state as text, the zone escaped", () => {
    const out = renderStrip("origin", `x"><b>`).toString();
    expect(out).toContain('<li class="hop error">');
    expect(out).toContain("x&quot;&gt;&lt;b&gt;");
    expect(out.match(/<span class="state">Working<\/span>/g)).toHaveLength(2);
    expect(out).toContain('<span class="state">Error</span>');
  });
});
