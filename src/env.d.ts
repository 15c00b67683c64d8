// Secrets are not in wrangler.toml, so `wrangler types` cannot see them (and must not: a local .dev.vars
// would otherwise leak into the checked-in types, toolchain.md §9). Declared here for the Worker and tests.
declare namespace Cloudflare {
  interface Env {
    ADMIN_TOKEN?: string;
    API_TOKENS?: string;
  }
}
