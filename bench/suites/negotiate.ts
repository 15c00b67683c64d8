/**
 * Content negotiation (docs/negotiation.md) as a pure-function micro-benchmark in Node:
 *   - the per-isolate memo of `chooseErrorFormat` against the same negotiation without it (does it pay?);
 *   - the scanner on a 64 KiB header against a 1 KiB one, per byte (is it linear?).
 */
import { chooseErrorFormat, chooseErrorFormatUncached } from "../../src/errors/format.ts";
import { compare } from "../lib/micro.ts";
import { round } from "../lib/stats.ts";
import type { ResultRow, SuiteContext, SuiteResult } from "../lib/suite.ts";

export const description = "Accept negotiation: memo vs none, and 64 KiB vs 1 KiB headers per byte (Node)";

/** Accept values real clients send (browsers, curl, agents, API clients), in rotation. */
const COMMON = [
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
  "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "*/*",
  "application/json",
  "application/json, text/plain, */*",
  "text/markdown, */*",
  "application/problem+json, application/json;q=0.9",
  "text/markdown;q=1.0, text/html;q=0.5, */*;q=0.1",
];

function headerOf(bytes: number): string {
  const filler = "application/xml;q=0.9;charset=utf-8, image/*;q=0.1, ";
  return `${filler.repeat(Math.ceil(bytes / filler.length))}text/markdown;q=0.95`;
}

export async function run(context: SuiteContext): Promise<SuiteResult> {
  const rounds = context.quick ? 3 : 21;
  const pick = (i: number): string => COMMON[i % COMMON.length] as string;
  const memo = compare(
    (i) => chooseErrorFormat(pick(i)),
    (i) => chooseErrorFormatUncached(pick(i)),
    { batch: 20_000, rounds },
  );
  context.log(`memo ${memo.subjectNs} ns/op, uncached ${memo.baselineNs} ns/op`);

  const small = headerOf(1024);
  const big = headerOf(64 * 1024);
  const scale = big.length / small.length;
  // Subject: one 64 KiB header; baseline: the same number of bytes as 1 KiB headers. Ratio 1 = linear.
  const linear = compare(
    () => chooseErrorFormatUncached(big),
    () => {
      let last: unknown;
      for (let k = 0; k < scale; k++) last = chooseErrorFormatUncached(small);
      return last;
    },
    { batch: context.quick ? 20 : 100, rounds },
  );
  context.log(`64 KiB ${linear.subjectNs} ns/op, ${round(scale, 1)} × 1 KiB ${linear.baselineNs} ns/op`);

  const rows: ResultRow[] = [
    { name: "chooseErrorFormat without memo (8 common headers)", baseline: true, nsPerOp: memo.baselineNs, ratio: 1 },
    { name: "chooseErrorFormat with memo (same headers)", nsPerOp: memo.subjectNs, ratio: memo.ratio },
    { name: `${round(scale, 1)} × 1 KiB headers (same bytes)`, baseline: true, nsPerOp: linear.baselineNs, ratio: 1 },
    { name: "one 64 KiB header", nsPerOp: linear.subjectNs, ratio: linear.ratio },
  ];
  return {
    rows,
    notes: [
      `${rounds} interleaved rounds; ratio = baseline ns ÷ subject ns (the memo row: how many times faster the memo is;`,
      "the 64 KiB row: 1.00× means exactly linear in header size, a quadratic scanner would be ~0.02×).",
    ],
  };
}
