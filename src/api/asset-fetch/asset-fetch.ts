/**
 * Fetching a custom error asset (docs/custom-errors.md "Custom error assets"): the page at the asset URL, then its
 * stylesheets and images (and the `url(…)`s of those stylesheets), each fetched exactly as zone traffic reaches the
 * zone's origin (src/edge/origin/forward.ts: the zone's origin, its connect and read timeouts, `X-Forwarded-*`,
 * `CDN-Loop`, redirects not followed, origin failures classified as the proxy classifies them). Only the URL's path
 * and query are used; the host is the zone's (or a subdomain: same scope only, custom-pages/assets.ts), so a URL
 * can never make the service fetch from anywhere but the zone's own origin: never an API host, never the internet.
 *
 * Bounds (docs/configuration.md: limits before work): the whole asset (the page and every resource) within the zone's read
 * timeout from the first byte asked (a hanging origin answers a precise error then, never a hang), at most
 * ASSET_LIMITS.resources distinct resources, and at most ASSET_LIMITS.bytes read in all (a body is read as a stream
 * and abandoned as soon as it passes), then at most ASSET_LIMITS.bytes of final HTML, counted while it is written
 * (inlining stops there: memory and work bounded by the limit whatever the page references).
 *
 * A page answered with 4xx/5xx is accepted (published since 2025-06-09); a redirect is refused (the proxy does not
 * follow redirects: give the final URL). A linked resource must answer 2xx: an error page is not a stylesheet.
 */
import type { Connector } from "../../edge/origin/network";
import { forwardToOrigin, type ForwardPlan } from "../../edge/origin/forward";
import { scanRequestHeaders } from "../../edge/origin/headers";
import { err, ok, type Result } from "../../shared/result";
import { TIMEOUT, within } from "../../shared/timeout";
import { occurrences, TOKEN_GROWTH } from "../../state/zone/custom-pages/validate";
import {
  ASSET_LIMITS,
  parseAssetUrl,
  type AssetFailure,
  type AssetScope,
  type AssetUrl,
} from "../../state/zone/custom-pages/assets";
import { cssLinks, dataUri, inlinePage, pageLinks, type LinkedStylesheet } from "./inline";
import { routeTo } from "../../edge/compiled-zone";
import { connectorFor } from "../../edge/origin/connector";
import type { Zone } from "../../state/zone/schema";

/** How the asset reaches the zone's origin. */
export interface AssetFetchPlan {
  readonly forward: ForwardPlan;
  readonly connector: Connector;
  readonly scope: AssetScope;
}

/** A fetched asset: the final HTML and its size in UTF-8 bytes. */
export interface FetchedAsset {
  readonly html: string;
  readonly bytes: number;
  /** The status the page was answered with (4xx/5xx accepted). */
  readonly status: number;
}

interface Fetched {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Page media types an asset may be made from (it is served as `text/html`). */
const PAGE_TYPES = new Set(["text/html", "application/xhtml+xml", "text/plain"]);

/**
 * An asset of a zone as read, fetched through that zone's origin: the one entry point of the asset API, a page's
 * `url` and a bundle's `custom_assets` (docs/custom-errors.md "Custom error assets", docs/config-as-code.md).
 */
export function fetchZoneAsset(
  env: Env,
  zone: Zone,
  url: AssetUrl,
  scope: AssetScope,
): Promise<Result<FetchedAsset, AssetFailure>> {
  return fetchAsset(url, { forward: routeTo(zone.target, zone.settings).plan, connector: connectorFor(env), scope });
}

export async function fetchAsset(url: AssetUrl, plan: AssetFetchPlan): Promise<Result<FetchedAsset, AssetFailure>> {
  const session = new Session(plan, Date.now() + plan.forward.readTimeoutMs);
  const page = await session.get(url, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1");
  if (!page.ok) return page;
  const type = mediaType(page.value.contentType);
  if (type !== null && !PAGE_TYPES.has(type))
    return failed(url, `the origin answered ${type}, not an HTML page (text/html)`);
  const html = decoder.decode(page.value.body);

  // Every in-scope reference the page makes, resolved against the page; stylesheets first (their url()s join).
  const links = pageLinks(html);
  const resources = new Map<string, string>();
  const sheetUrls = unique(links.stylesheets.map((ref) => session.resolve(ref, url.href)));
  const sheets = await session.all(sheetUrls, async (sheet) => {
    const got = await session.get(sheet, "text/css,*/*;q=0.1", true);
    if (!got.ok) return got;
    return ok({ sheet, css: decoder.decode(got.value.body) });
  });
  if (!sheets.ok) return sheets;
  const wanted = [
    ...links.images.map((ref) => session.resolve(ref, url.href)),
    ...links.cssUrls.map((ref) => session.resolve(ref, url.href)),
    ...sheets.value.flatMap(({ sheet, css }) => cssLinks(css).map((ref) => session.resolve(ref, sheet.href))),
  ];
  const fetched = await session.all(unique(wanted), async (resource) => {
    const got = await session.get(resource, "image/*,*/*;q=0.8", true);
    if (!got.ok) return got;
    return ok({ resource, uri: dataUri(got.value.contentType, got.value.body) });
  });
  if (!fetched.ok) return fetched;
  for (const { resource, uri } of fetched.value) resources.set(resource.href, uri);
  const uriOf = (reference: string, base: string): string | null => {
    const resolved = session.resolve(reference, base);
    return resolved === null ? null : (resources.get(resolved.href) ?? null);
  };
  const stylesheets = new Map<string, LinkedStylesheet>();
  for (const { sheet, css } of sheets.value)
    stylesheets.set(sheet.href, { css, dataUri: (ref) => uriOf(ref, sheet.href) });

  // Counted as it is written and stopped past the limit (inline.ts `Output`): what the fetch read is bounded, what
  // inlining writes is bounded here, whatever the page references (an image named 200 times is 200 copies).
  const inlined = inlinePage(
    html,
    {
      stylesheet: (ref) => {
        const resolved = session.resolve(ref, url.href);
        return resolved === null ? null : (stylesheets.get(resolved.href) ?? null);
      },
      dataUri: (ref) => uriOf(ref, url.href),
    },
    ASSET_LIMITS.bytes,
  );
  if (inlined.kind === "too-large")
    return err({
      kind: "asset-too-large",
      bytes: inlined.atLeast,
      limit: ASSET_LIMITS.bytes,
      what: "at least; counted while its stylesheets and images were inlined, which stopped there",
    });
  const final = inlined.html;
  const size = encoder.encode(final).byteLength;
  const growth = TOKEN_GROWTH.reduce((sum, [token, extra]) => sum + occurrences(final, token) * extra, 0);
  if (size + growth > ASSET_LIMITS.bytes) {
    const what =
      growth > 0
        ? "its stylesheets and images inlined and its value tokens at their longest"
        : "its stylesheets and images inlined";
    return err({ kind: "asset-too-large", bytes: size + growth, limit: ASSET_LIMITS.bytes, what });
  }
  return ok({ html: final, bytes: size, status: page.value.status });
}

/** One asset's fetches: the shared deadline, the shared byte budget, the resource count. */
class Session {
  private bytesRead = 0;
  private resources = 0;
  constructor(
    private readonly plan: AssetFetchPlan,
    private readonly deadline: number,
  ) {}

  /** A reference as an in-scope URL, or `null` when it is left as written (`data:`, a fragment, another host). */
  resolve(reference: string, base: string): AssetUrl | null {
    const trimmed = reference.trim();
    if (trimmed === "" || trimmed.startsWith("#") || /^data:/i.test(trimmed)) return null;
    const parsed = parseAssetUrl(trimmed, this.plan.scope, base);
    return parsed.ok ? parsed.value : null;
  }

  /** Maps every URL at once (the origin sees them in parallel, as a browser would load them). */
  async all<T>(
    urls: readonly AssetUrl[],
    each: (url: AssetUrl) => Promise<Result<T, AssetFailure>>,
  ): Promise<Result<T[], AssetFailure>> {
    this.resources += urls.length;
    if (this.resources > ASSET_LIMITS.resources)
      return err({
        kind: "asset-fetch-failed",
        url: urls[0]?.href ?? "",
        reason: `the page links more than ${ASSET_LIMITS.resources} stylesheets and images (distinct URLs)`,
      });
    const results = await Promise.all(urls.map(each));
    const values: T[] = [];
    for (const result of results) {
      if (!result.ok) return result;
      values.push(result.value);
    }
    return ok(values);
  }

  /** One URL through the zone's origin: status, type and body, within the deadline and the byte budget. */
  async get(url: AssetUrl, accept: string, resource = false): Promise<Result<Fetched, AssetFailure>> {
    const what = resource ? "linked resource" : "asset URL";
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return failed(url, this.lateReason());
    const target = new URL(url.href);
    const request = new Request(target, {
      headers: { Accept: accept, "User-Agent": "edge-errors custom error asset fetcher" },
    });
    const forward: ForwardPlan = { ...this.plan.forward, readTimeoutMs: remaining };
    const answered = await forwardToOrigin(request, target, scanRequestHeaders(request.headers), forward, {
      connector: this.plan.connector,
      path: url.path,
    });
    if (!answered.ok) {
      const { code, cause } = answered.error;
      return failed(url, `the zone's origin gave no response for the ${what}: error ${code} (${cause})`);
    }
    const response = answered.value;
    if (response.status >= 300 && response.status < 400) {
      void response.body?.cancel();
      const location = response.headers.get("Location");
      return failed(
        url,
        `the origin answered ${response.status} (a redirect${location === null ? "" : ` to ${location}`}); ` +
          "redirects are not followed: give the final URL",
      );
    }
    if (resource && (response.status < 200 || response.status >= 300)) {
      void response.body?.cancel();
      return failed(url, `the origin answered ${response.status} for a linked stylesheet or image (2xx needed)`);
    }
    const body = await this.read(url, response);
    if (!body.ok) return body;
    return ok({ status: response.status, contentType: response.headers.get("Content-Type"), body: body.value });
  }

  /** The body as a stream, abandoned past the byte budget or the deadline. */
  private async read(url: AssetUrl, response: Response): Promise<Result<Uint8Array, AssetFailure>> {
    if (response.body === null) return ok(new Uint8Array());
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    try {
      for (;;) {
        const remaining = this.deadline - Date.now();
        const next = remaining > 0 ? await within(reader.read(), remaining) : TIMEOUT;
        if (next === TIMEOUT) return failed(url, this.lateReason());
        if (next.done) break;
        length += next.value.byteLength;
        this.bytesRead += next.value.byteLength;
        if (this.bytesRead > ASSET_LIMITS.bytes)
          return err({
            kind: "asset-too-large",
            bytes: this.bytesRead,
            limit: ASSET_LIMITS.bytes,
            what: "counting what was read from the origin so far (the page and its linked resources)",
          });
        chunks.push(next.value);
      }
    } catch (e) {
      return failed(url, `the origin's response broke off: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      reader.cancel().catch(() => undefined);
    }
    const body = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      body.set(chunk, at);
      at += chunk.byteLength;
    }
    return ok(body);
  }

  private lateReason(): string {
    return (
      `the asset and its linked resources did not arrive within the zone's read timeout ` +
      `(${this.plan.forward.readTimeoutMs} ms from the first request)`
    );
  }
}

function failed(url: AssetUrl, reason: string): Result<never, AssetFailure> {
  return err({ kind: "asset-fetch-failed", url: url.href, reason });
}

function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null;
  return contentType.split(";")[0]!.trim().toLowerCase() || null;
}

function unique(urls: readonly (AssetUrl | null)[]): AssetUrl[] {
  const seen = new Map<string, AssetUrl>();
  for (const url of urls) if (url !== null && !seen.has(url.href)) seen.set(url.href, url);
  return [...seen.values()];
}
