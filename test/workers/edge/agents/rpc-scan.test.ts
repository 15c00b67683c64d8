/**
 * The JSON-RPC scan (src/edge/agents/rpc-scan.ts) reads a body as `JSON.parse` and `readJsonRpc` would, from
 * chunks cut anywhere: the same requests, and the same verdict on what is not JSON.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readJsonRpc, rpcBodyOf } from "../../../../src/edge/agents/mcp-answer";
import { MEMBER_BYTES, RpcScanner } from "../../../../src/edge/agents/rpc-scan";

const encoder = new TextEncoder();

function scanned(bytes: Uint8Array, cuts: readonly number[]): string {
  const scanner = new RpcScanner();
  let at = 0;
  for (const cut of [...cuts].map((c) => c % (bytes.length + 1)).sort((a, b) => a - b)) {
    scanner.push(bytes.subarray(at, cut));
    at = cut;
  }
  scanner.push(bytes.subarray(at));
  const value = scanner.finish();
  return value === undefined ? "not JSON" : JSON.stringify(rpcBodyOf(value, "tools/call"));
}

function parsed(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  try {
    JSON.parse(text);
  } catch {
    return "not JSON";
  }
  return JSON.stringify(readJsonRpc(text, "tools/call"));
}

const member = fc.oneof(
  fc.constant("2.0"),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue(),
);
const message = fc.dictionary(fc.constantFrom("jsonrpc", "id", "method", "params", "x"), member);
const body = fc
  .oneof(message, fc.array(fc.oneof(message, fc.jsonValue())), fc.jsonValue())
  .map((v) => JSON.stringify(v));
/** Bodies as clients write them, and as they go wrong: escaped names, a byte order mark, cut short, one byte off. */
const text = body.chain((t) =>
  fc.oneof(
    fc.constant(t),
    fc.constant(t.replace(/"id"/g, '"\\u0069d"').replace(/"method"/g, '"meth\\u006fd"')),
    fc.constant(` \n\t${t} \r`),
    fc.constant(`\ufeff${t}`),
    fc.nat(t.length).map((n) => t.slice(0, n)),
    fc.nat(t.length).map((n) => t.slice(0, n) + t.slice(n + 1)),
    fc
      .tuple(fc.nat(t.length), fc.constantFrom("x", ",", "]", "}", '"', "\\", "\n", "-", "0", "e", ".", "\u0001", "é"))
      .map(([n, c]) => t.slice(0, n) + c + t.slice(n)),
  ),
);

describe("the JSON-RPC scan", () => {
  it("gives what JSON.parse and readJsonRpc give, however the body is cut into chunks", () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 6 }), (t, cuts) => {
        const bytes = encoder.encode(t);
        expect(scanned(bytes, cuts)).toBe(parsed(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    '{"jsonrpc":"2.0","id":-0.5e+3,"method":"a"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"a"}',
    '[{"jsonrpc":"2.0","id":"a\\n","method":"b"},3,{"jsonrpc":"2.0","id":2,"method":"c","id":"z"}]',
    '{"method":"tools/call","params":{"id":9,"jsonrpc":"2.0"},"jsonrpc":"2.0","id":"last"}',
    "01",
    "[1,]",
    '{"id":1 "x":2}',
    '{"jsonrpc":"2.0","id":1,"method":"a"}x',
    "",
  ])("%s", (t) => {
    const bytes = encoder.encode(t);
    expect(scanned(bytes, [])).toBe(parsed(bytes));
  });

  it(`an id longer than ${MEMBER_BYTES} bytes of JSON is not read: no request`, () => {
    const id = "i".repeat(MEMBER_BYTES);
    expect(scanned(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })), [])).toBe(
      JSON.stringify({ kind: "none" }),
    );
  });
});
