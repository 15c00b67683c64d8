/**
 * The trivial baseline Worker of the load suites: the cheapest possible answer. Served exactly like the
 * real Worker (bench/lib/serve.ts: same bundler, same Miniflare options and bindings), so the ratio
 * "real ÷ baseline" measures only what the real Worker does per request.
 */
export default {
  fetch(): Response {
    return new Response("ok");
  },
};
