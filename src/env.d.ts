// `wrangler types` reads secrets from .dev.vars.example only (`--env-file`, package.json "types"), so the
// checked-in types are the same on every clone whatever a local .dev.vars holds (docs/development.md "wrangler dev and /cdn-cgi").
// API_TOKENS is optional and commented out there, so it is declared here.
declare namespace Cloudflare {
  interface Env {
    API_TOKENS?: string;
    /** Test-only: origin faults to inject (src/edge/origin/faults.ts); never set in wrangler.toml. */
    ORIGIN_FAULTS?: string;
  }
}
