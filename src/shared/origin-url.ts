/**
 * Origin URLs (docs/origin.md): `http(s)://host[:port]` only — no path, query, fragment or credentials — and
 * never a host of API_HOSTS. Pure: parsed once when a zone is written or loaded, never per request.
 */
import { normaliseHostname } from "./host";
import { err, ok, type Result } from "./result";

/** Where a zone's traffic goes, pre-parsed for the hot path. */
export interface OriginTarget {
  /** Normalised `scheme://host[:port]` without a trailing slash (what is stored and shown). */
  readonly origin: string;
  readonly scheme: "http" | "https";
  /** Lower-case hostname; IPv6 literals keep their brackets (`[::1]`), as in URLs. */
  readonly hostname: string;
  /** The effective port (80 / 443 when the URL names none). */
  readonly port: number;
  /** Whether the URL named a port explicitly. */
  readonly explicitPort: boolean;
}

const MAX_ORIGIN_LENGTH = 2048;

/** Parses and normalises an origin URL. The message says what is wrong, for the API's 400. */
export function parseOriginUrl(raw: string): Result<OriginTarget, string> {
  if (raw.length === 0 || raw.length > MAX_ORIGIN_LENGTH) return err(`must be 1 to ${MAX_ORIGIN_LENGTH} characters`);
  if (/[\s?#]/.test(raw)) return err("must be scheme://host[:port] only (no whitespace, query or fragment)");
  if (!URL.canParse(raw)) return err("is not a valid URL");
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") return err("scheme must be http or https");
  if (url.username !== "" || url.password !== "" || raw.includes("@")) return err("must not contain credentials");
  if (url.pathname !== "/" || /^https?:\/\/[^/]*\/./i.test(raw)) return err("must not contain a path");
  if (url.hostname === "") return err("must name a host");
  const scheme = url.protocol === "https:" ? "https" : "http";
  const explicitPort = url.port !== "";
  const port = explicitPort ? Number(url.port) : scheme === "https" ? 443 : 80;
  // `url.host` omits a default port, so `http://h:80` and `http://h` normalise to the same origin.
  return ok({ origin: `${scheme}://${url.host}`, scheme, hostname: url.hostname, port, explicitPort });
}

/**
 * Whether an origin would point back at the management API (docs/origin.md: an origin is never a host of API_HOSTS),
 * on any port: the same hostname may serve the API on several ports (a local `wrangler dev`, a proxy in front), and
 * a port says nothing about which process answers. A loop that slips through anyway is caught by CDN-Loop (1000).
 */
export function pointsAtApi(target: OriginTarget, apiHosts: ReadonlySet<string>): boolean {
  return apiHosts.has(normaliseHostname(target.hostname));
}
