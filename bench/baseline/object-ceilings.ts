/**
 * Diagnostic Worker of the analytics suite (docs/scale.md): one request = one RPC to one Durable Object, so many
 * concurrent senders find the ceiling of one object (and of several, the request naming the object). Built from
 * src/ with the Worker's own classes; the bench serves it exactly like the Worker (bench/lib/serve.ts).
 *   /analytics?name=N&records=R   a batch of R new records (random Ray IDs, now) to ZoneAnalytics `N`
 *   /tags?name=N                  putTags of one resource (a new id each time) in TagStore `N`
 *   /writer?name=N                one edit (url normalisation, alternating) by ZoneWriter `N` of zone `N`
 *   /rate?name=N                  one exact `hit` of a counter of RateLimiter `N`
 */
import { newRayId } from "../../src/shared/ray";
import { encodeBatch, type ErrorRecord } from "../../src/state/analytics/record";
export { TagStore, ZoneWriter, RateLimiter, ZoneAnalytics } from "../../src/index";

let sequence = 0;

function records(count: number, now: number): ErrorRecord[] {
  return Array.from({ length: count }, () => ({
    ray: newRayId(),
    at: now,
    code: 502,
    status: 502,
    source: "edge" as const,
    answered_by: "default" as const,
    answer_id: null,
    format: "json" as const,
    method: "GET",
    path: "/checkout",
    country: null,
    cause: "origin sent garbage",
    detail: null,
  }));
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const name = url.searchParams.get("name") ?? "probe.example";
    sequence += 1;
    switch (url.pathname) {
      case "/analytics": {
        const count = Number(url.searchParams.get("records") ?? "1");
        const stub = env.ZONE_ANALYTICS.get(env.ZONE_ANALYTICS.idFromName(name));
        return new Response(String(await stub.recordEncoded(encodeBatch(records(count, Date.now())))));
      }
      case "/tags": {
        const stub = env.TAG_STORE.get(env.TAG_STORE.idFromName(name));
        const put = await stub.putTags({
          ref: { type: "worker", parent: name, id: `w${sequence}` },
          tags: [["team", "edge"]],
          etag: `"e${sequence}"`,
          ifMatch: null,
          limit: 10_000_000,
        });
        return new Response(put.ok ? "ok" : put.error.kind);
      }
      case "/writer": {
        const stub = env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(name));
        const setting = { scope: "incoming", type: sequence % 2 === 0 ? "cloudflare" : "rfc3986" } as const;
        let edited = await stub.edit(name, { kind: "url-normalization", setting });
        if (!edited.ok && edited.error.kind === "not-found") {
          const settings = {
            plan: "enterprise",
            origin: "http://origin.bench.example",
            connect_timeout: 19,
            read_timeout: 100,
            max_request_header_bytes: 32768,
            retry_hints: "published",
          } as const;
          await stub.edit(name, { kind: "settings", settings });
          edited = await stub.edit(name, { kind: "url-normalization", setting });
        }
        return new Response(edited.ok ? "ok" : edited.error.kind, { status: edited.ok ? 200 : 500 });
      }
      case "/rate": {
        const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
        const key = `k${sequence % 64}`;
        const decision = await stub.hit({
          key,
          period: 60,
          requestsPerPeriod: 1_000_000,
          mitigationTimeout: 1,
          now: Date.now(),
        });
        return new Response(JSON.stringify(decision));
      }
      default:
        return new Response("unknown probe", { status: 404 });
    }
  },
};
