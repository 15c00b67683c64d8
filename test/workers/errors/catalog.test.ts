/**
 * The catalog against the research data (fixtures/error-catalog.research.json, a copy of the shared research) and
 * the exact rules of docs/errors.md and docs/errors.md.
 */
import { describe, expect, it } from "vitest";
import provenanceSidecar from "../../../fixtures/catalog-provenance.json";
import research from "../../../fixtures/error-catalog.research.json";
import { CATALOG, ERROR_CATEGORIES, catalogEntry, type CatalogEntry } from "../../../src/errors/catalog";

/** The fields of an entry that carry provenance. `retry` covers both `retryable` and `retry_after`. */
type CatalogField =
  "status" | "title" | "error_name" | "category" | "retry" | "owner_action_required" | "detail" | "what_you_should_do";

/**
 * Where each value of the catalog comes from: published verbatim, or adapted on purpose (with the published value
 * and the reason). A test-only sidecar (fixtures/catalog-provenance.json), so the ~9 KB never ship to an isolate.
 */
interface Provenance {
  readonly published: readonly CatalogField[];
  readonly adapted?: Partial<
    Readonly<Record<CatalogField, { readonly published: string | number | boolean; readonly why: string }>>
  >;
}
const PROVENANCE = provenanceSidecar as unknown as Record<string, Provenance>;
const provenanceOf = (code: number): Provenance => {
  const p = PROVENANCE[String(code)];
  if (!p) throw new Error(`no provenance for ${code} in fixtures/catalog-provenance.json`);
  return p;
};

interface ResearchEntry {
  code: number;
  http_status: number | null;
  title: string | null;
  title_structured?: string;
  error_name: string | null;
  error_category: string | null;
  retryable: boolean | null;
  retry_after: number | null;
  owner_action_required: boolean | null;
  detail?: string | null;
  what_you_should_do?: string | null;
  provenance: Record<string, string>;
}

const RESEARCH = research as ResearchEntry[];

/** docs/errors.md: 500, 502, 504, 520–526 and the listed 1xxx ranges. */
function requiredCodes(): number[] {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  return [
    500,
    502,
    504,
    ...range(520, 526),
    ...range(1000, 1020),
    1023,
    ...range(1025, 1029),
    ...range(1033, 1045),
    1047,
    1049,
    ...range(1100, 1109),
    ...range(1200, 1206),
  ];
}

const isPublished = (provenance: string | undefined) => provenance?.startsWith("source") ?? false;

type Value = string | number | boolean | null;

/** The published value of each field of a research entry, under the catalog's field names (absent = unknown). */
function publishedValues(r: ResearchEntry): Partial<Record<CatalogField, Value>> {
  const out: Partial<Record<CatalogField, Value>> = {};
  if (r.http_status !== null && isPublished(r.provenance.http_status)) out.status = r.http_status;
  // The live structured title (`Error N: …`) is the wire title; else the docs title when its provenance is a source.
  if (r.title_structured) out.title = r.title_structured.replace(/^Error \d+: /, "");
  else if (r.title !== null && isPublished(r.provenance.title)) out.title = r.title;
  if (r.error_name !== null && isPublished(r.provenance.error_name)) out.error_name = r.error_name;
  if (r.error_category !== null && isPublished(r.provenance.error_category)) out.category = r.error_category;
  if (r.retryable !== null && isPublished(r.provenance.retryable)) out.retry = r.retryable ? r.retry_after : null;
  if (r.owner_action_required !== null && isPublished(r.provenance.owner_action_required))
    out.owner_action_required = r.owner_action_required;
  if (r.detail) out.detail = r.detail;
  if (r.what_you_should_do) out.what_you_should_do = r.what_you_should_do;
  return out;
}

function catalogValue(entry: CatalogEntry, field: CatalogField): Value {
  switch (field) {
    case "status":
      return entry.status;
    case "title":
      return entry.title;
    case "error_name":
      return entry.errorName;
    case "category":
      return entry.category;
    case "retry":
      return entry.retryAfter;
    case "owner_action_required":
      return entry.ownerActionRequired;
    case "detail":
      return entry.detail;
    case "what_you_should_do":
      return entry.whatYouShouldDo;
  }
}

describe("catalog coverage (docs/errors.md)", () => {
  it("holds exactly the required codes, ascending", () => {
    expect(CATALOG.map((e) => e.code)).toEqual(requiredCodes());
  });

  it("covers every code of the research data that is in scope (527 and 530 are not structured errors)", () => {
    const inScope = RESEARCH.map((r) => r.code).filter((c) => c !== 527 && c !== 530);
    for (const code of inScope) expect(catalogEntry(code), `code ${code}`).toBeDefined();
  });

  it("has unique, snake_case error names", () => {
    const names = CATALOG.map((e) => e.errorName);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
  });

  it.each(CATALOG.map((e) => [e.code, e] as const))("%i has a valid status, category and texts", (_code, e) => {
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThanOrEqual(599);
    expect(e.title.length).toBeGreaterThan(0);
    expect(e.detail.length).toBeGreaterThan(0);
    expect(e.whatYouShouldDo.length).toBeGreaterThan(0);
    // docs/differences.md: texts name the operator neutrally.
    expect(`${e.title} ${e.detail} ${e.whatYouShouldDo}`).not.toMatch(/cloudflare/i);
  });
});

describe("categories in use", () => {
  it("every category of ERROR_CATEGORIES names at least one code (no dead category)", () => {
    const used = new Set(CATALOG.map((e) => e.category));
    expect(ERROR_CATEGORIES.filter((c) => !used.has(c))).toEqual([]);
  });

  it("every code has its provenance in the sidecar, and the sidecar names no other code", () => {
    expect(
      Object.keys(PROVENANCE)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(CATALOG.map((e) => e.code));
    for (const e of CATALOG)
      expect(
        provenanceOf(e.code).published.length + Object.keys(provenanceOf(e.code).adapted ?? {}).length,
      ).toBeGreaterThan(0);
  });
});

describe("retry rules (docs/errors.md)", () => {
  it("5xx defaults are exact", () => {
    const fivexx = Object.fromEntries(CATALOG.filter((e) => e.code < 1000).map((e) => [e.code, e.retryAfter]));
    expect(fivexx).toEqual({
      500: 30,
      502: 60,
      504: 120,
      520: 60,
      521: 120,
      522: 120,
      523: 120,
      524: 120,
      525: null,
      526: null,
    });
  });

  it("exactly six 1xxx codes are retryable, with their values", () => {
    const retryable = CATALOG.filter((e) => e.code >= 1000 && e.retryAfter !== null).map((e) => [e.code, e.retryAfter]);
    expect(retryable).toEqual([
      [1004, 120],
      [1015, 30],
      [1033, 120],
      [1038, 60],
      [1200, 60],
      [1205, 5],
    ]);
  });

  it("names 1015 rate_limited and 522 connection_timeout / origin / owner action (docs/errors.md example)", () => {
    expect(catalogEntry(1015)?.errorName).toBe("rate_limited");
    expect(catalogEntry(522)).toMatchObject({
      errorName: "connection_timeout",
      category: "origin",
      retryAfter: 120,
      ownerActionRequired: true,
    });
  });
});

describe("categories (docs/errors.md)", () => {
  const table: Record<string, number[]> = {
    origin: [502, 504, 520, 521, 522, 523, 524],
    edge: [500],
    ssl: [525, 526],
    access_denied: [1005, 1006, 1007, 1008, 1010, 1012, 1106, 1107, 1108, 1109],
    rate_limit: [1015, 1025, 1027, 1200],
    dns: [1001, 1016],
    config: [1004, 1014, 1033, 1043, 1047, 1049],
    tls: [1017, 1028, 1029, 1044],
    legal: [1026, 1039],
    worker: [1042, 1100, 1101, 1102, 1103, 1104, 1105],
    rewrite: [1036, 1037],
    snippet: [1201, 1202, 1203, 1204, 1205, 1206],
    unsupported: [1045],
  };
  const rows = Object.entries(table).flatMap(([category, codes]) => codes.map((code) => [code, category] as const));
  it.each(rows)("%i is %s", (code, category) => {
    expect(catalogEntry(code)?.category).toBe(category);
  });
});

describe("provenance against the research data", () => {
  const rows = RESEARCH.filter((r) => catalogEntry(r.code)).map((r) => [r.code, r] as const);

  it.each(rows)("%i keeps every published value (verbatim, or adapted with the original and a reason)", (code, r) => {
    const entry = catalogEntry(code)!;
    for (const [field, value] of Object.entries(publishedValues(r)) as [CatalogField, Value][]) {
      const adapted = provenanceOf(code).adapted?.[field];
      if (adapted) {
        expect(adapted.published, `${code}.${field} adapted from`).toBe(value);
        expect(adapted.why.length, `${code}.${field} reason`).toBeGreaterThan(10);
        expect(provenanceOf(code).published, `${code}.${field} not both`).not.toContain(field);
      } else {
        expect(catalogValue(entry, field), `${code}.${field}`).toBe(value);
        expect(provenanceOf(code).published, `${code}.${field} marked published`).toContain(field);
      }
    }
  });

  it.each(rows)("%i marks as published only values the research confirms", (code, r) => {
    const entry = catalogEntry(code)!;
    const known = publishedValues(r);
    for (const field of provenanceOf(code).published) {
      expect(field in known, `${code}.${field} has a published value`).toBe(true);
      expect(catalogValue(entry, field), `${code}.${field}`).toBe(known[field]);
    }
  });
});
