/**
 * The client package's `parse` (packages/client, docs/client.md) per format, in Node: µs per call on the
 * conformance kit's real bodies (generated from the Worker), against a baseline that only reads the same body from a
 * `Response` (`new Response(body).text()`: what any reader of the body pays). Rounds alternate subject and baseline;
 * medians over rounds. The codes rotate through the whole catalog.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "../../packages/client/src/index.ts";
import { median, round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description =
  "client parse() per format (JSON, problem+json, Markdown, HTML island, HEAD) vs reading the body";

interface Case {
  readonly request: { readonly method: string };
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
}

const FORMATS = ["json", "problem-json", "markdown", "html", "head"] as const;

async function timeNs(cases: readonly Case[], iterations: number, op: (c: Case) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await op(cases[i % cases.length] as Case);
  return Number(process.hrtime.bigint() - start) / iterations;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 3 : 15;
  const iterations = context.quick ? 500 : 3000;
  const rows: ResultRow[] = [];
  for (const format of FORMATS) {
    const cases = JSON.parse(
      readFileSync(resolve(context.root, "packages/conformance/kit", `${format}.json`), "utf8"),
    ) as Case[];
    const responseOf = (c: Case): Response =>
      new Response(c.request.method === "HEAD" ? null : c.response.body, {
        status: c.response.status,
        headers: c.response.headers,
      });
    const subject = (c: Case): Promise<unknown> => parse(responseOf(c));
    const baseline = (c: Case): Promise<unknown> => responseOf(c).text();
    await timeNs(cases, iterations, subject); // warm-up
    await timeNs(cases, iterations, baseline);
    const s: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        s.push(await timeNs(cases, iterations, subject));
        b.push(await timeNs(cases, iterations, baseline));
      } else {
        b.push(await timeNs(cases, iterations, baseline));
        s.push(await timeNs(cases, iterations, subject));
      }
    }
    const sNs = median(s);
    const bNs = median(b);
    context.log(`${format}: parse ${round(sNs / 1000, 1)} µs, read body ${round(bNs / 1000, 1)} µs`);
    rows.push({ name: `${format}: Response + text()`, baseline: true, nsPerOp: round(bNs, 0), ratio: 1 });
    rows.push({ name: `${format}: parse(response)`, nsPerOp: round(sNs, 0), ratio: round(bNs / sNs, 2) });
  }
  return {
    rows,
    notes: ["µs per call = nsPerOp / 1000; every code of the catalog in rotation; bodies from the conformance kit."],
  };
}
