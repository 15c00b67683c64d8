/**
 * docs/client.md "Sending a `Host` header from Node" runs as written: its code block is taken from the document, its
 * two imports handed in, its port the served Worker's, and it reaches the zone its `Host` names. The zone blocks the
 * recipe's path with a firewall rule (1020: not retryable, so `fetchWithRetry` answers after one attempt), and the same
 * request without the recipe (Node's own `fetch`, which drops a `Host` header it is given) does not reach that zone.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchWithRetry } from "../src/index.js";
import { startWorker, type TestWorker } from "./support/worker.js";

const DOC = resolve(import.meta.dirname, "../../../docs/client.md");
const HEADING = "### Sending a `Host` header from Node";

/** The first js code block under the heading. */
function recipe(): string {
  const doc = readFileSync(DOC, "utf8");
  const section = doc.slice(doc.indexOf(HEADING));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (doc.indexOf(HEADING) < 0 || block === undefined) throw new Error(`no code block under ${HEADING}`);
  return block;
}

type Recipe = (
  request: unknown,
  fetchWithRetry: unknown,
  console: { log: (...values: unknown[]) => void },
) => Promise<void>;
// The constructor of async functions, so the block's top-level `await` runs as it would in an ES module.
const asyncPrototype = Object.getPrototypeOf(async () => undefined) as { constructor: unknown };
const AsyncFunction = asyncPrototype.constructor as new (...source: string[]) => Recipe;

describe("docs/client.md: a Host header from Node", () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await startWorker();
    await worker.put("/zones/shop.example", { plan: "pro", origin: "http://127.0.0.1:9" });
    await worker.put("/zones/shop.example/rulesets/phases/http_request_firewall_custom/entrypoint", {
      rules: [{ action: "block", expression: 'http.request.uri.path eq "/drop"' }],
    });
  }, 120_000);
  afterAll(() => worker?.dispose());

  it("the recipe's request reaches shop.example (its rule answers 1020); Node's fetch alone does not", async () => {
    const source = recipe();
    // The block's imports are the two names it uses; its default port is the document's `npm run dev` port.
    expect(source.match(/^import .*$/gm)).toEqual([
      'import { request } from "node:http";',
      'import { fetchWithRetry } from "@edge-errors/client";',
    ]);
    const port = new URL(worker.base).port;
    const body = source.replace(/^import .*$/gm, "").replace("port = 8787", `port = ${port}`);
    expect(body).toContain(`port = ${port}`);
    const printed: unknown[][] = [];
    await new AsyncFunction("request", "fetchWithRetry", "console", body)(request, fetchWithRetry, {
      log: (...values) => printed.push(values),
    });
    expect(printed).toHaveLength(1);
    const [status, code, decision] = printed[0] ?? [];
    expect([status, code]).toEqual([403, 1020]);
    expect(decision).toMatchObject({ kind: expect.stringMatching(/^(give-up|escalate)$/) as unknown });

    // Without the recipe the Host header is dropped: the Worker sees 127.0.0.1, not the zone, and its rule.
    const plain = await fetchWithRetry(
      `${worker.base}/drop`,
      { headers: { Host: "shop.example" } },
      { maxAttempts: 1 },
    );
    expect(plain.error?.code).not.toBe(1020);
  });
});
