/**
 * The Worker: one `fetch` entry (src/app.ts) and the Durable Object classes its bindings name.
 * See docs/architecture.md for the request lifecycle.
 */
import { handle } from "./app";

export { TagStore } from "./state/tags/tag-store";
export { ZoneWriter } from "./state/zone/writer";
export { RateLimiter } from "./state/rate-limiter/rate-limiter";
export { ZoneAnalytics } from "./state/analytics/zone-analytics";

export default { fetch: handle } satisfies ExportedHandler<Env>;
