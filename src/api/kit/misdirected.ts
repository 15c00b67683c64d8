/**
 * An API path sent to a host that can be neither the API nor a zone (docs/configuration.md "API hosts"): a
 * `/client/v4/…` request to an IP literal that is not in API_HOSTS (`http://127.0.0.1:8787/client/v4/zones` when
 * the API answers on `localhost`). No zone is ever named by an IP literal (its traffic would be the structured error
 * 1003, an HTML page to an SDK), so the client plainly meant the API: it gets the v4 envelope, 404, naming the API
 * base URLs it should use instead. A hostname's `/client/v4/…` paths stay that zone's traffic.
 */
import type { RequestContext } from "../../shared/request-context";
import { apiFailureResponse, failureOf } from "./envelope";

/** The path prefix of the published v4 API (mount.ts serves the API with and without it). */
export const V4_BASE = "/client/v4";

/** Whether a path is the published v4 API's (`/client/v4` or below it). */
export function isV4Path(path: string): boolean {
  return path === V4_BASE || path.startsWith(`${V4_BASE}/`);
}

/** The 404 envelope naming the API's base URL on each API host, with the request's scheme and port. */
export function notAnApiHost(rc: RequestContext): Response {
  const { url, zone, settings } = rc;
  const port = url.port === "" ? "" : `:${url.port}`;
  const bases = [...settings.apiHosts].map((host) => {
    const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    return `${url.protocol}//${name}${port}${V4_BASE}`;
  });
  const where =
    bases.length === 0 ? "no API host is configured (API_HOSTS)" : `use ${bases.join(" or ")} (API_HOSTS) instead`;
  const message =
    `${zone} is an IP address, which is neither an API host nor a zone, so no management API answers here: ` + where;
  return apiFailureResponse(failureOf("not-an-api-host", message));
}
