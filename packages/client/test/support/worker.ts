/**
 * The real Worker for the client's tests: src/index.ts bundled and served by Miniflare on 127.0.0.1
 * (bench/lib/serve.ts, the same harness `npm run conformance` uses), with the management API on the host `api.test`.
 * Error endpoints (`/cdn-cgi/error/{code}`) answer over real HTTP on 127.0.0.1; zone traffic needs its zone's host name,
 * which no resolver here maps to 127.0.0.1, so `zoneFetch` hands a request to the same Worker through Miniflare's
 * `dispatchFetch` with its URL (and so its host) unchanged.
 */
/** A loopback port nobody listens on: a real 521 (test/servers/ports.ts says why it is below the ephemeral range). */
export { closedPort } from "../../../../test/servers/ports.ts";
import { resolve } from "node:path";
import { serveWorker, type Served } from "../../../../bench/lib/serve.ts";

const root = resolve(import.meta.dirname, "../../../..");
const TOKEN = "client-test-token";
const API = "http://api.test";

export interface TestWorker {
  /** Base URL on 127.0.0.1, without the trailing slash. */
  readonly base: string;
  /** `PUT` a management API path (a zone, a ruleset); throws unless 200. */
  readonly put: (path: string, body: unknown) => Promise<void>;
  /** `fetch` for zone traffic: the request reaches the Worker with its own host (see above). */
  readonly zoneFetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  readonly dispose: () => Promise<void>;
}

export async function startWorker(): Promise<TestWorker> {
  const served: Served = await serveWorker({
    root,
    entry: "src/index.ts",
    bindings: { ADMIN_TOKEN: TOKEN, API_HOSTS: "api.test" },
  });
  const dispatch = async (request: Request): Promise<Response> => {
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const answer = await served.miniflare.dispatchFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      redirect: "manual",
    });
    // Miniflare's Response is its own undici's class: give callers the global one, as `fetch` would.
    const bytes = request.method === "HEAD" ? null : await answer.arrayBuffer();
    return new Response(bytes, { status: answer.status, statusText: answer.statusText, headers: [...answer.headers] });
  };
  return {
    base: served.url.href.replace(/\/$/, ""),
    put: async (path, body) => {
      const res = await dispatch(
        new Request(API + path, {
          method: "PUT",
          headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      if (res.status !== 200) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
    },
    zoneFetch: (input, init) => dispatch(new Request(input, init)),
    dispose: () => served.dispose(),
  };
}
