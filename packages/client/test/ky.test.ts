/**
 * ky (a devDependency, used only here) with `kyRetry`: ky alone would retry a 521 never and a 502 after 0.3 s;
 * with the policy ky waits what the error says. Responses come from the conformance kit (the Worker's own bodies);
 * the test records the delay ky is given and then waits 0 ms instead of 120 s.
 */
import { readFileSync } from "node:fs";
import ky from "ky";
import { describe, expect, it } from "vitest";
import { kyAfterResponse, kyRetry, type EdgeError } from "../src/index.js";

interface Case {
  readonly code: number;
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
}
const cases = JSON.parse(readFileSync(new URL("../conformance/json.json", import.meta.url), "utf8")) as Case[];
const fixture = (code: number): Response => {
  const c = cases.find((x) => x.code === code)!;
  return new Response(c.response.body, { status: c.response.status, headers: c.response.headers });
};

describe("ky with kyRetry", () => {
  it("retries a 521 (ky alone never does) after the delay the error asks, then succeeds", async () => {
    const answers = [fixture(521), new Response("ok", { status: 200 })];
    const seen: EdgeError[] = [];
    const retry = kyRetry({ random: () => 0, jitter: 0 });
    const delays: number[] = [];
    const delay = retry.delay;
    retry.delay = (n) => {
      const ms = delay(n);
      delays.push(ms);
      return 0; // the test does not wait the real 120 s: it checks what ky would wait
    };
    const text = await ky
      .get("http://shop.test/", {
        fetch: async () => answers.shift()!,
        retry,
        hooks: { afterResponse: [kyAfterResponse((e) => seen.push(e))] },
      })
      .text();
    expect(text).toBe("ok");
    expect(delays).toEqual([120_000]);
    expect(seen.map((e) => e.code)).toEqual([521]);
  });

  it("does not retry a non-retryable 1020", async () => {
    let calls = 0;
    const request = ky.get("http://shop.test/", {
      fetch: async () => {
        calls++;
        return fixture(1020);
      },
      retry: kyRetry(),
    });
    await expect(request).rejects.toThrow();
    expect(calls).toBe(1);
  });
});
