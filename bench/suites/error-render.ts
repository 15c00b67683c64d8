/**
 * Error rendering (docs/errors.md) as pure-function micro-benchmarks in Node: what building and rendering
 * one error costs in each format, against the irreducible work of any JSON error answer, `JSON.stringify` of the
 * same 17 fields. Also the YAML emitter on a hostile string against `JSON.stringify` of that string (both escape),
 * and an error overlaid by a custom error rule (rendered in full, without the per-code templates).
 * The load suite `errors` measures the same path end to end in workerd.
 */
import { catalogEntry } from "../../src/errors/catalog.ts";
import { errorFields, footerText, wireTimestamp, type ErrorFields } from "../../src/errors/fields.ts";
import { overlaidFields, PreparedOverlay, renderOverlaid } from "../../src/errors/overlay.ts";
import { renderHtml } from "../../src/errors/render-html.ts";
import { renderJson } from "../../src/errors/render-json.ts";
import { renderMarkdown } from "../../src/errors/render-markdown.ts";
import { yamlScalar } from "../../src/errors/yaml.ts";
import { EN_WORDS } from "../../src/errors/languages/en.ts";
import { compare, type Operation } from "../lib/micro.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "error fields + JSON / Markdown / HTML rendering vs JSON.stringify of the fields (Node)";

const CODES = [522, 1015, 1020, 526, 1101];

function fieldsOf(i: number): ErrorFields {
  const entry = catalogEntry(CODES[i % CODES.length] as number)!;
  return errorFields(entry, {
    type: `https://shop.example/cdn-cgi/errors/${entry.code}`,
    rayId: "9f140b785e57c458",
    timestamp: wireTimestamp(1_795_000_000_000 + i * 1000),
    zone: "shop.example",
    retryAfter: entry.retryAfter,
    footer: footerText("the edge"),
    reachedOrigin: false,
  });
}

/** An overlay with both texts, two links and branding (docs/custom-errors.md "Overlay"), prepared once as a rule is. */
const OVERLAY = new PreparedOverlay({
  detail: 'Our shop is being restocked: back soon.\n<b>Thank you</b> for your patience & "understanding".',
  what_you_should_do: "1. Wait a minute.\n2. Check **our status page**.",
  links: [
    { title: "Status page", href: "https://status.shop.example/" },
    { title: "Contact [support]", href: "https://shop.example/contact?from=error" },
  ],
  branding: { name: "Shop & Co", accent_color: "#0a7cff" },
});

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 3 : 21;
  const prepared = CODES.map((_, i) => fieldsOf(i));
  const at = (i: number): ErrorFields => prepared[i % prepared.length] as ErrorFields;
  const baseline: Operation = (i) => JSON.stringify(at(i));
  const subjects: [string, Operation][] = [
    ["errorFields + renderJson (a whole JSON body)", (i) => renderJson(fieldsOf(i))],
    ["renderMarkdown", (i) => renderMarkdown(at(i))],
    ["renderHtml", (i) => renderHtml(at(i))],
    [
      "overlay: overlaidFields + JSON",
      (i) => renderOverlaid(overlaidFields(at(i), OVERLAY.overlay), "json", OVERLAY, EN_WORDS),
    ],
    [
      "overlay: overlaidFields + Markdown",
      (i) => renderOverlaid(overlaidFields(at(i), OVERLAY.overlay), "markdown", OVERLAY, EN_WORDS),
    ],
    [
      "overlay: overlaidFields + HTML",
      (i) => renderOverlaid(overlaidFields(at(i), OVERLAY.overlay), "html", OVERLAY, EN_WORDS),
    ],
  ];
  const rows: ResultRow[] = [];
  let baselineNs = 0;
  for (const [name, subject] of subjects) {
    const result = compare(subject, baseline, { batch: 5_000, rounds });
    baselineNs = result.baselineNs;
    context.log(`${name}: ${result.subjectNs} ns/op vs ${result.baselineNs} ns/op`);
    rows.push({ name, nsPerOp: result.subjectNs, ratio: result.ratio });
  }
  rows.unshift({ name: "JSON.stringify of the 17 fields", baseline: true, nsPerOp: baselineNs, ratio: 1 });

  const hostile = `line one: "quoted" # not a comment\n---\n\ttab, unicode 日本語 🎉, control \u0001\u007f, ${"x".repeat(200)}`;
  const yaml = compare(
    () => yamlScalar(hostile),
    () => JSON.stringify(hostile),
    { batch: 20_000, rounds },
  );
  rows.push(
    { name: "JSON.stringify of a hostile 300-char string", baseline: true, nsPerOp: yaml.baselineNs, ratio: 1 },
    { name: "yamlScalar of the same string (double-quoted)", nsPerOp: yaml.subjectNs, ratio: yaml.ratio },
  );
  return {
    rows,
    notes: [
      `${rounds} interleaved rounds; ratio = baseline ns ÷ subject ns (1.00× = as fast as JSON.stringify).`,
      "Codes rotate over 522, 1015, 1020, 526, 1101 (retryable and not, one- and multi-line guidance).",
    ],
  };
}
