/** Host helpers shared by routing and the proxy. */

/**
 * The zone of a request: its hostname, lower-cased, without port (contract §0), and without the trailing dot of
 * an absolute name: `shop.example.` is the same host (RFC 1034 §3.1), so it is the same zone (its config, the
 * names the zones API stores) and `localhost.` the same API host.
 */
export function zoneOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return host.length > 1 && host.endsWith(".") ? host.slice(0, -1) : host;
}

/** Whether `path` is the service prefix itself or lies under it (`/cdn-cgi`, `/cdn-cgi/...`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + "/");
}
