/**
 * The languages the service's prose is written in (docs/languages.md), as the RFC 5646 tags sent in
 * `Content-Language`; English first, the fallback. Here rather than in src/errors/ because the zone document's
 * `languages` field (src/state/zone/schema.ts) names them too. Pure.
 */
export const LANGUAGES = ["en", "de", "es", "fr", "ja", "pt-BR", "zh-CN"] as const;
export type Language = (typeof LANGUAGES)[number];
