/** Host helpers shared by routing and the proxy. */

/**
 * The zone of a request: its hostname, lower-cased, without port (contract §0), and without the trailing dot of
 * an absolute name: `shop.example.` is the same host (RFC 1034 §3.1), so it is the same zone (its config, the
 * names the zones API stores) and `localhost.` the same API host.
 */
export function zoneOf(url: URL): string {
  return normaliseHostname(url.hostname);
}

/** Whether `path` is the service prefix itself or lies under it (`/cdn-cgi`, `/cdn-cgi/...`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + "/");
}

/**
 * A hostname as the service compares hostnames (zones, API_HOSTS, token scopes, origins): lower-case, without the
 * trailing dot of an absolute name (RFC 1034 §3.1: `shop.example.` is `shop.example`).
 */
export function normaliseHostname(host: string): string {
  const lower = host.toLowerCase();
  return lower.length > 1 && lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** An IP literal as the URL parser leaves it: `1.2.3.4` (every IPv4 spelling normalised to this) or `[v6]`. */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}
