/** The one reader of the client's country (src/shared/country.ts): access rules, `::GEO::` and analytics use it. */
import { describe, expect, it } from "vitest";
import { clientCountry } from "../../../src/shared/country";

const withCf = (country: unknown) => ({ cf: { country } }) as unknown as Request;

describe("clientCountry", () => {
  it("is request.cf.country when it is two upper-case letters", () => {
    expect(clientCountry(withCf("DE"))).toBe("DE");
    expect(clientCountry(withCf("XX"))).toBe("XX");
  });

  it("is undefined for anything else: lower-case, Tor's T1, markup, a number, no cf, no country", () => {
    for (const value of ["de", "T1", "<b>", "DEU", "D", "", 49, null]) {
      expect(clientCountry(withCf(value)), String(value)).toBeUndefined();
    }
    expect(clientCountry(new Request("https://z.example/"))).toBeUndefined();
    expect(clientCountry({ cf: {} } as unknown as Request)).toBeUndefined();
  });
});
