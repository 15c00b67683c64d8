/**
 * ky 1 and ky 2 with `kyRetry` and `kyAfterResponse`, against the real Worker (support/worker.ts). ky 1.14.3 is what
 * `npm install ky` gives on Node 20 (ky 2 needs Node ≥ 22); the two call an `afterResponse` hook differently
 * (docs/client.md "ky"), and each case below runs with both where both are installed. ky 2 is an optional dependency
 * of the repository (so `npm install` on Node 20 skips it without an engine warning): on Node 20 its cases here are
 * skipped, and packed.test.ts still runs and type checks ky 2 beside the packed client on every Node.
 *
 * ky alone would retry a 521 never and a 502 after 0.3 s; with the policy ky waits what the error says. The waits ky is
 * given are recorded and replaced by 0 ms, so nothing waits the real 120 s.
 */
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import ky1, { HTTPError as HTTPError1 } from "ky1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyAfterResponse, kyRetry, type EdgeError, type KyRetryLike, type RetryOptions } from "../src/index.js";
import { closedPort, startWorker, type TestWorker } from "./support/worker.js";

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface Call {
  readonly method?: "get" | "post";
  readonly headers?: Readonly<Record<string, string>>;
  readonly retry: KyRetryLike;
  readonly onError: (error: EdgeError) => void;
  readonly fetch?: Fetch;
}

interface Ky {
  readonly name: string;
  /** The request through this ky, its body as text. */
  readonly text: (url: string, call: Call) => Promise<string>;
  /** This ky's HTTPError class: what a caller must get for an error response, never a TypeError from a hook. */
  readonly HTTPError: abstract new (...args: never[]) => Error;
}

/**
 * ky 2 when installed (Node ≥ 22), typed as ky 1: the specifier is a variable so that the type check does not need ky 2
 * on Node 20; packed.test.ts type checks the hook and the retry option against ky 2's own types.
 */
const KY2_SPECIFIER = "ky";
const ky2Module = (await import(KY2_SPECIFIER).catch(() => null)) as typeof import("ky1") | null;

const KIES: Ky[] = [
  {
    name: "ky 1.14.3",
    text: (url, call) =>
      ky1(url, {
        method: call.method ?? "get",
        ...(call.headers === undefined ? {} : { headers: call.headers }),
        retry: call.retry,
        hooks: { afterResponse: [kyAfterResponse(call.onError)] },
        ...(call.fetch === undefined ? {} : { fetch: call.fetch }),
      }).text(),
    HTTPError: HTTPError1,
  },
];
if (ky2Module !== null) {
  const ky2 = ky2Module.default;
  KIES.push({
    name: "ky 2.1.0",
    text: (url, call) =>
      ky2(url, {
        method: call.method ?? "get",
        ...(call.headers === undefined ? {} : { headers: call.headers }),
        retry: call.retry,
        hooks: { afterResponse: [kyAfterResponse(call.onError)] },
        ...(call.fetch === undefined ? {} : { fetch: call.fetch }),
      }).text(),
    HTTPError: ky2Module.HTTPError,
  });
}

/** `kyRetry` whose chosen waits are recorded; ky is told 0 ms. `onWait` runs during each wait. */
function recorded(
  options: RetryOptions = {},
  onWait?: () => Promise<void>,
): { retry: KyRetryLike; waits: number[]; done: Promise<void>[] } {
  const retry = kyRetry({ random: () => 0, ...options });
  const waits: number[] = [];
  const done: Promise<void>[] = [];
  const chosen = retry.delay;
  return {
    retry: {
      ...retry,
      delay: (attempt) => {
        waits.push(chosen(attempt));
        if (onWait !== undefined) done.push(onWait());
        return 0;
      },
    },
    waits,
    done,
  };
}

/** A loopback origin that reads the request, then resets the connection: the origin saw it (a 520). */
async function resettingPort(): Promise<number> {
  const server = createTcpServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
  tcpServers.push(server);
  await new Promise<void>((up) => server.listen(0, "127.0.0.1", up));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
const tcpServers: ReturnType<typeof createTcpServer>[] = [];

let worker: TestWorker;
const servers: Server[] = [];

beforeAll(async () => {
  worker = await startWorker();
}, 60_000);

afterAll(async () => {
  for (const server of servers) server.close();
  for (const server of tcpServers) server.close();
  await worker?.dispose();
});

describe.each(KIES)("$name with kyRetry and kyAfterResponse", (ky) => {
  it("a 521: retried after the error's own 120 s, each error handed to the hook, then ky's HTTPError", async () => {
    const { retry, waits } = recorded({ maxAttempts: 3 });
    const seen: EdgeError[] = [];
    const failure = await ky.text(`${worker.base}/cdn-cgi/error/521`, { retry, onError: (e) => seen.push(e) }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ky.HTTPError);
    expect((failure as { response: Response }).response.status).toBe(521);
    expect(waits).toEqual([120_000, 120_000]);
    expect(seen.map((e) => [e.code, e.source, e.retryAfter])).toEqual([
      [521, "markdown", 120],
      [521, "markdown", 120],
      [521, "markdown", 120],
    ]);
  });

  it("a 1020 (an intentional block): one request, and the caller gets ky's HTTPError, not a TypeError", async () => {
    const { retry, waits } = recorded();
    const seen: EdgeError[] = [];
    const failure = await ky.text(`${worker.base}/cdn-cgi/error/1020`, { retry, onError: (e) => seen.push(e) }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ky.HTTPError);
    expect((failure as { response: Response }).response.status).toBe(403);
    expect(waits).toEqual([]);
    expect(seen.map((e) => [e.code, e.retryable])).toEqual([[1020, false]]);
  });

  it("a POST the origin may have seen (a 520 after a reset) is not retried; with an Idempotency-Key it is", async () => {
    const zone = `post-${ky.name.replace(/\W+/g, "-")}.client.test`;
    await worker.put(`/zones/${zone}`, { plan: "pro", origin: `http://127.0.0.1:${await resettingPort()}` });
    for (const [headers, expected] of [
      [{}, [[], [520]]],
      [
        { "Idempotency-Key": "order-42" },
        [
          [60_000, 60_000],
          [520, 520, 520],
        ],
      ],
    ] as const) {
      const { retry, waits } = recorded();
      const seen: EdgeError[] = [];
      const failure = await ky
        .text(`http://${zone}/orders`, {
          method: "post",
          headers,
          retry,
          onError: (e) => seen.push(e),
          fetch: worker.zoneFetch,
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(ky.HTTPError);
      expect([waits, seen.map((e) => e.code)]).toEqual(expected);
    }
  });

  it("zone traffic: a refused origin (a real 521) is retried until the origin is back, then its 200", async () => {
    const zone = `${ky.name.replace(/\W+/g, "-")}.client.test`;
    const port = await closedPort();
    await worker.put(`/zones/${zone}`, { plan: "pro", origin: `http://127.0.0.1:${port}`, connect_timeout: 1 });
    // The origin comes up during the first wait, on the port that refused.
    let origin: Server | undefined;
    const { retry, waits, done } = recorded({}, async () => {
      if (origin !== undefined) return;
      origin = createServer((_req, res) => res.end(`origin back on ${zone}`));
      servers.push(origin);
      await new Promise<void>((up) => origin?.listen(port, "127.0.0.1", up));
    });
    const seen: EdgeError[] = [];
    const text = await ky.text(`http://${zone}/checkout`, {
      retry,
      onError: (e) => seen.push(e),
      fetch: async (input, init) => {
        await Promise.all(done);
        return worker.zoneFetch(input, init);
      },
    });
    expect(text).toBe(`origin back on ${zone}`);
    expect(waits).toEqual([120_000]);
    expect(seen.map((e) => [e.code, e.source, e.fields.zone])).toEqual([[521, "markdown", zone]]);
  });
});

describe("kyAfterResponse", () => {
  it("ignores what it does not recognise instead of throwing over the caller's error", async () => {
    const seen: EdgeError[] = [];
    // What a future ky, or a caller passing the hook somewhere else, might hand it.
    const hook = kyAfterResponse((e) => seen.push(e)) as unknown as (...args: unknown[]) => Promise<void>;
    await expect(hook({})).resolves.toBeUndefined();
    await expect(hook(undefined)).resolves.toBeUndefined();
    await expect(hook(new Request("http://x.test/"), {}, undefined, {})).resolves.toBeUndefined();
    expect(seen).toEqual([]);
  });
});
