/** src/shared/timeout.ts: the value, TIMEOUT when time runs out, and a rejection passed on. */
import { describe, expect, it } from "vitest";
import { TIMEOUT, within } from "../../../src/shared/timeout";

describe("within", () => {
  it("is the promise's value when it settles in time", async () => {
    expect(await within(Promise.resolve(7), 1000)).toBe(7);
  });

  it("is TIMEOUT when it does not", async () => {
    expect(await within(new Promise<never>(() => undefined), 5)).toBe(TIMEOUT);
  });

  it("passes a rejection on (rate limiting logs it and fails open)", async () => {
    await expect(within(Promise.reject(new Error("counter threw")), 1000)).rejects.toThrow("counter threw");
  });
});
