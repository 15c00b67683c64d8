/**
 * The client's country as the runtime reports it (`request.cf.country`, an ISO 3166-1 alpha-2 code): the one reader,
 * for access rules (`ip.src.country` targets), the `::GEO::` placeholder of custom pages and the analytics record.
 * Anything but two upper-case letters (absent, lower-case, or `T1`, the platform's code for Tor) is no country.
 */
export function clientCountry(request: Request): string | undefined {
  const value = (request as { readonly cf?: Readonly<Record<string, unknown>> }).cf?.country;
  return typeof value === "string" && /^[A-Z]{2}$/.test(value) ? value : undefined;
}
