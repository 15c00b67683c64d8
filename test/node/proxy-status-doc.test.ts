/**
 * docs/errors.md "Proxy-Status (RFC 9209)" lists every catalog code with the type the code sends (a doc
 * that promises what the code does not do is a defect), row for row.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CATALOG } from "../../src/errors/catalog.ts";
import { PROXY_ERROR_TYPES } from "../../src/errors/proxy-status.ts";

describe("docs/errors.md Proxy-Status table", () => {
  it("has one row per catalog code, with its status, name and type", () => {
    const doc = readFileSync("docs/errors.md", "utf8");
    const rows = new Map<number, string>();
    for (const m of doc.matchAll(/^\| (\d+) \| (\d+) \| `([a-z0-9_]+)` \| `([a-z_]+)` \|$/gm)) {
      rows.set(Number(m[1]), `${m[2]} ${m[3]} ${m[4]}`);
    }
    expect([...rows.keys()]).toEqual(CATALOG.map((e) => e.code));
    for (const e of CATALOG)
      expect(rows.get(e.code), String(e.code)).toBe(`${e.status} ${e.errorName} ${PROXY_ERROR_TYPES[e.code]}`);
  });
});
