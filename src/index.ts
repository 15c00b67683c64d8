/**
 * The Worker: one `fetch` entry (src/http/handler.ts) and the Durable Object classes its bindings name.
 * See docs/architecture.md for the request lifecycle.
 */
import { handle } from "./http/handler";

export { TagStore } from "./tags/tag-store";
export { RateLimiter } from "./ratelimit/rate-limiter";

export default { fetch: handle } satisfies ExportedHandler<Env>;
