/** Host helpers shared by routing and the proxy. */

/** The zone of a request: its hostname, lower-cased, without port (contract §0). */
export function zoneOf(url: URL): string {
  return url.hostname.toLowerCase();
}

/** Whether `path` is the service prefix itself or lies under it (`/cdn-cgi`, `/cdn-cgi/...`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + "/");
}
