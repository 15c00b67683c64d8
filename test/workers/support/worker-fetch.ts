/**
 * One request through the Worker's own `fetch` (the default export of src/index.ts) with the test's bindings, its
 * after-response work awaited: for the management API's helper (`apiFetch`) and files that send hundreds of
 * requests. The pool's `exports.default` wraps its entrypoint's prototype in one more `Proxy` per call
 * (@cloudflare/vitest-pool-workers 0.15, `createProxyPrototypeClass`), so the k-th call of a file walks k proxies: one
 * file's 8th hundred calls took 46× as long as its first hundred, and a few thousand overflow the stack
 * (docs/development.md "How long the suite takes").
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/index";

export async function workerFetch(url: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
