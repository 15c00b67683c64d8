/**
 * Every body format (JSON, Markdown, HTML) of an error is rendered once per (code, retry_after, footer)
 * with markers in its per-occurrence places and then only spliced (src/errors/occurrence-template.ts). The spliced
 * body must be byte for byte the body the full renderer gives, for every code of the catalog, dynamic retry values
 * and hostile per-occurrence values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CATALOG } from "../../../src/errors/catalog";
import { errorFields, footerText, type ErrorFields } from "../../../src/errors/fields";
import { withRetryGuidance } from "../../../src/errors/pipeline";
import type { OccurrenceRenderer } from "../../../src/errors/occurrence-template";
import { htmlBody, renderHtml, renderPage } from "../../../src/errors/render-html";
import { jsonBody, jsonString, renderJson, renderJsonFull } from "../../../src/errors/render-json";
import { markdownBody, renderMarkdown, renderMarkdownFull } from "../../../src/errors/render-markdown";

const HOSTILE_ZONE = `<script>alert("z")</script>&'.example\\ \u0000 \u2028 "quoted" ☃ \ud83d\ude00`;
const HOSTILE_TYPE = `https://x.example/"><img src=x onerror=alert(1)>\\u0001`;

const FORMATS: readonly (readonly [
  string,
  (f: ErrorFields) => string,
  (f: ErrorFields) => string,
  OccurrenceRenderer,
])[] = [
  ["JSON", renderJson, renderJsonFull, jsonBody],
  ["Markdown", renderMarkdown, renderMarkdownFull, markdownBody],
  ["HTML", renderHtml, renderPage, htmlBody],
];
const utf8 = new TextEncoder();

function fields(code: number, retry: number | null, zone: string, type: string, footer = footerText("the edge")) {
  const entry = CATALOG.find((e) => e.code === code)!;
  const retryAfter = entry.retryAfter === null ? null : (retry ?? entry.retryAfter);
  return errorFields(withRetryGuidance(entry, retryAfter), {
    type,
    rayId: Math.random().toString(16).slice(2, 18).padEnd(16, "0"),
    timestamp: "2026-11-22T16:00:00Z",
    zone,
    retryAfter,
    footer,
    reachedOrigin: REACHED[code % 3] ?? null,
  });
}

/** `request_reached_origin` varies between occurrences of a code, so templates keyed by it are exercised. */
const REACHED = [true, false, null] as const;

describe("values that need no escape are only quoted, every other value is escaped as before", () => {
  // Any UTF-16 string (lone surrogates, controls, quotes, backslashes, `<>&`, U+2028) and printable ASCII.
  const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 40 }));

  it("jsonString is JSON.stringify", () => {
    fc.assert(
      fc.property(anyText, (value) => {
        expect(jsonString(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 5000 },
    );
  });

  it.each(FORMATS)("%s: any zone and type splice to the full rendering", (_name, spliced, full) => {
    fc.assert(
      fc.property(anyText, anyText, (zone, type) => {
        const f = fields(522, null, zone, type);
        expect(spliced(f)).toBe(full(f));
      }),
      { numRuns: 500 },
    );
  });
});

describe.each(FORMATS)("%s: the spliced body equals the full rendering", (_name, spliced, full) => {
  it.each(CATALOG.map((e) => e.code))(
    "code %i, several times (then from the cache), plain and hostile values",
    (code) => {
      for (const [zone, type] of [
        ["shop.example", `http://shop.example/cdn-cgi/errors/${code}`],
        [HOSTILE_ZONE, HOSTILE_TYPE],
        ["other.example", `http://other.example/cdn-cgi/errors/${code}`],
        ["", ""],
      ] as const) {
        const f = fields(code, null, zone, type);
        expect(spliced(f)).toBe(full(f));
      }
    },
  );

  it("a dynamic Retry-After and another operator name are bodies of their own", () => {
    for (const retry of [1, 2, 42, 3600]) {
      const f = fields(1015, retry, "shop.example", "http://shop.example/cdn-cgi/errors/1015");
      expect(spliced(f)).toBe(full(f));
    }
    const f = fields(522, null, "shop.example", "http://x/", footerText(`Ops <"Team"> \\ \n`));
    expect(spliced(f)).toBe(full(f));
  });

  it("more distinct Retry-After values than the template cache holds (512): still the full rendering", () => {
    for (let retry = 1; retry <= 600; retry++) {
      const f = fields(1015, retry, "shop.example", "http://shop.example/cdn-cgi/errors/1015");
      expect(spliced(f), `retry ${retry}`).toBe(full(f));
    }
    const f = fields(522, null, "shop.example", "http://x/");
    expect(spliced(f)).toBe(full(f));
  });

  it("a footer carrying the marker character is rendered in full, never split on", () => {
    const f = fields(522, null, "shop.example", "http://x/", footerText("odd\u0001zone\u0001name"));
    expect(spliced(f)).toBe(full(f));
  });
});

describe("the byte bodies", () => {
  it("are each their own: a body kept keeps its bytes when the next error is rendered", async () => {
    const first = fields(522, null, "first.example", "http://first.example/cdn-cgi/errors/522");
    const second = fields(1020, null, "second.example", "http://second.example/cdn-cgi/errors/1020");
    for (const [, , full, renderer] of FORMATS) {
      const kept = renderer.bytes(first);
      const response = new Response(renderer.bytes(first));
      const view = renderer.bytes(second);
      expect(new TextDecoder().decode(view)).toBe(full(second));
      expect(new TextDecoder().decode(kept)).toBe(full(first));
      expect(await response.text()).toBe(full(first));
    }
  });

  it("a run of occurrences is always the full rendering", () => {
    // Small pools so that values repeat and change (same length, other lengths, non-ASCII of the same length,
    // values needing escapes), in any order, across codes (templates) and formats.
    const rays = [
      "0123456789abcdef",
      "fedcba9876543210",
      "00000000ffffffff",
      "ééééééééééééééé1",
      '<&>"\'\\<&>"\'\\<&>"',
    ];
    const stamps = ["2026-11-22T16:00:00Z", "2026-11-22T16:00:01Z", "2026-11-22T16:00:0\u00e9"];
    const zones = ["shop.example", "shop.examplf", "localhost", HOSTILE_ZONE, "\ud83d\ude00.example", ""];
    const types = [
      "http://shop.example/cdn-cgi/errors/522",
      "http://shop.example/cdn-cgi/errors/52\u0001",
      HOSTILE_TYPE,
    ];
    const occurrence = fc.record({
      code: fc.constantFrom(522, 1020, 1015),
      ray: fc.constantFrom(...rays),
      stamp: fc.constantFrom(...stamps),
      zone: fc.constantFrom(...zones),
      type: fc.constantFrom(...types),
      reached: fc.constantFrom(true, false, null),
    });
    fc.assert(
      fc.property(fc.array(occurrence, { minLength: 1, maxLength: 12 }), (run) => {
        for (const o of run) {
          const entry = CATALOG.find((e) => e.code === o.code)!;
          const f = errorFields(entry, {
            type: o.type,
            rayId: o.ray,
            timestamp: o.stamp,
            zone: o.zone,
            retryAfter: entry.retryAfter,
            footer: footerText("the edge"),
            reachedOrigin: o.reached,
          });
          for (const [name, , full, renderer] of FORMATS) {
            expect(new TextDecoder().decode(renderer.bytes(f)), name).toBe(full(f));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a large body is whole", () => {
    const huge = fields(522, null, "z".repeat(40_000), "http://x/");
    for (const [, , full, renderer] of FORMATS) expect(renderer.bytes(huge)).toEqual(utf8.encode(full(huge)));
  });
});

describe("what the spliced bodies say", () => {
  it("JSON and Markdown read back the hostile values exactly", () => {
    const f = fields(522, null, HOSTILE_ZONE, HOSTILE_TYPE);
    const json = JSON.parse(renderJson(f)) as Record<string, unknown>;
    expect(json).toEqual(JSON.parse(JSON.stringify(f)));
    const frontmatter = parse(renderMarkdown(f).split("\n---\n")[0]!.slice(4)) as Record<string, unknown>;
    expect(frontmatter.zone).toBe(HOSTILE_ZONE);
    expect(frontmatter.ray_id).toBe(f.ray_id);
  });

  it("a dynamic Retry-After is in every format", () => {
    const f = fields(1015, 42, "shop.example", "http://shop.example/cdn-cgi/errors/1015");
    expect(JSON.parse(renderJson(f))).toMatchObject({ retry_after: 42 });
    expect(renderMarkdown(f)).toContain("retry_after: 42\n");
    expect(renderHtml(f)).toContain("try again in 42 seconds");
  });

  it("HTML: hostile values are escaped in the spliced page", () => {
    const page = renderHtml(fields(522, null, HOSTILE_ZONE, HOSTILE_TYPE));
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;script&gt;alert(&quot;z&quot;)&lt;/script&gt;&amp;&#39;.example");
    const f = fields(522, null, "shop.example", "http://x/", footerText(`Ops <"Team">`));
    expect(renderHtml(f)).toContain("Ops &lt;&quot;Team&quot;&gt;");
  });
});
