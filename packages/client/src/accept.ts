/**
 * The `Accept` a client of edge errors sends (docs/negotiation.md, docs/client.md): problem+json first, then JSON and Markdown (both
 * structured, both read by `parse`), and `*​/*` at a low weight so any other server still answers with whatever it
 * has (a page, an image) instead of 406. This service negotiates by q, so it answers problem+json; the published
 * platform treats the first explicit structured type as the preference (notes: BLOG's advice `application/json, *​/*`).
 */
export const ACCEPT = "application/problem+json, application/json;q=0.9, text/markdown;q=0.8, */*;q=0.1";
