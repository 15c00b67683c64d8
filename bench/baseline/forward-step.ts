/**
 * Diagnostic Worker of the proxy suite: the proxy's own forward step and nothing before it. The header
 * scan (src/edge/origin/headers.ts) and `forwardToOrigin` (src/edge/origin/forward.ts) with the timeouts of a zone
 * at its defaults, to `ORIGIN`; no dispatch (src/app.ts), no zone lookup, no request phases. Between the documented
 * minimum (inline, no structure) and the real Worker, its row says whether a gap lies in the forward step or in what
 * comes before it (docs/benchmarks-history.md "The performance-targets work (2026-11-24): where the last gaps are").
 */
import { routeTo, type Route } from "../../src/edge/compiled-zone";
import { runtimeConnector } from "../../src/edge/origin/connector";
import { forwardToOrigin } from "../../src/edge/origin/forward";
import { scanRequestHeaders } from "../../src/edge/origin/headers";
import { parseOriginUrl } from "../../src/shared/origin-url";
import { ZONE_LIMITS } from "../../src/state/zone/schema";

let route: Route | undefined;

export default {
  async fetch(request: Request, env: { readonly ORIGIN: string }): Promise<Response> {
    if (route === undefined) {
      const target = parseOriginUrl(env.ORIGIN);
      if (!target.ok) return new Response(`ORIGIN ${target.error}`, { status: 500 });
      route = routeTo(target.value, {
        connect_timeout: ZONE_LIMITS.connectTimeout.default,
        read_timeout: ZONE_LIMITS.readTimeout.default,
        max_request_header_bytes: ZONE_LIMITS.maxRequestHeaderBytes.default,
      });
    }
    const url = new URL(request.url);
    const scan = scanRequestHeaders(request.headers);
    if (scan.loop) return new Response("1000", { status: 403 });
    if (scan.bytes > route.maxRequestHeaderBytes) return new Response("1038", { status: 400 });
    const result = await forwardToOrigin(request, url, scan, route.plan, { connector: runtimeConnector });
    return result.ok ? result.value : new Response(String(result.error.code), { status: 502 });
  },
};
