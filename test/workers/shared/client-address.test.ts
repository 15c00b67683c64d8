/** src/shared/client-address.ts: CF-Connecting-IP only, one valid address, as text and as a number (docs/rules-language.md). */
import { describe, expect, it } from "vitest";
import { clientAddress } from "../../../src/shared/client-address";

const request = (headers: Record<string, string>) => new Request("https://z.example/", { headers });

describe("clientAddress", () => {
  it.each<[string, string | undefined]>([
    ["192.0.2.1", "192.0.2.1"],
    [" 2001:db8::1 ", "2001:db8::1"],
    ["::ffff:192.0.2.1", "::ffff:192.0.2.1"],
    ["192.0.2.1, 198.51.100.1", undefined],
    ["192.0.2.1:443", undefined],
    ["[2001:db8::1]", undefined],
    ["256.0.0.1", undefined],
    ["unknown", undefined],
    ["", undefined],
  ])("CF-Connecting-IP %j → %s", (header, text) => {
    expect(clientAddress(request({ "CF-Connecting-IP": header }))?.text).toBe(text);
  });

  it("parses the address (IPv4 as a number, IPv6 as a bigint), from a request or its headers", () => {
    expect(clientAddress(request({ "CF-Connecting-IP": "0.0.1.2" }))?.address).toBe(258);
    expect(clientAddress(new Headers({ "CF-Connecting-IP": "::1" }))?.address).toBe(1n);
  });

  it("never reads X-Forwarded-For", () => {
    expect(clientAddress(request({ "X-Forwarded-For": "192.0.2.1" }))).toBeUndefined();
  });
});
