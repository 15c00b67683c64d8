/**
 * What the front door (page.ts) points at: the service's own endpoints on this host, and names the documents of
 * the service's source (its docs/ folder): no public repository is known to hold them, so they are named, not linked. One list for the HTML page and the JSON answer, so the two cannot disagree.
 */
import type { Settings } from "../../shared/settings";
import { OPENAPI_PATH } from "../kit/openapi";

/** Where the documents are in the service's source. */
export const DOCS_FOLDER = "docs/";

/** The documents a newcomer needs, each with what it answers (files of the repository's docs/ folder). */
export const DOCS: readonly { readonly file: string; readonly title: string; readonly about: string }[] = [
  { file: "errors.md", title: "Structured errors", about: "the fields, formats and headers of every error" },
  { file: "negotiation.md", title: "Content negotiation", about: "which format a client gets for its Accept" },
  { file: "origin.md", title: "Origin proxy", about: "how each way an origin fails maps to a code" },
  {
    file: "custom-errors.md",
    title: "Custom error rules and pages",
    about: "a zone's own answers to errors, and their preview",
  },
  { file: "rulesets-api.md", title: "Rulesets API", about: "a zone's rulesets and their versions" },
  {
    file: "producers.md",
    title: "IP access, firewall and rate limiting",
    about: "the rules that block or limit requests",
  },
  { file: "rules-language.md", title: "Rules language", about: "the expressions every rule is written in" },
  { file: "analytics.md", title: "Error analytics", about: "what is recorded, the API and the analytics page" },
  { file: "tags-api.md", title: "Tagging API", about: "keys, values and tagged resources of an account" },
  { file: "configuration.md", title: "Configuration", about: "vars, secrets, tokens, zones and the KV layout" },
  { file: "client.md", title: "The client package", about: "parse and retry these errors from TypeScript" },
];

export const DESCRIPTION =
  "Every error this edge generates is a structured answer (JSON, Markdown or HTML, by Accept) with retry hints. " +
  "Each zone can add its own error rules and pages, firewall and rate limits, and see its errors' analytics. " +
  "This host serves the management API.";

/** Every link of the page, absolute on this host. */
export interface HomeLinks {
  readonly error_catalog: string;
  readonly openapi: string;
  readonly zones: string;
  readonly zone_analytics: string;
}

export function homeLinks(url: URL, settings: Settings): HomeLinks {
  const on = (path: string): string => new URL(path, url.origin).href;
  return {
    error_catalog: on(`${settings.servicePrefix}/errors`),
    openapi: on(OPENAPI_PATH),
    zones: on("/zones"),
    // A template (RFC 6570 level 1): the zone's hostname in place of `{zone}`.
    zone_analytics: `${url.origin}/zones/{zone}/analytics`,
  };
}
