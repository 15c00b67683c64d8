/**
 * Request fields (docs/rules-language.md), the set available to the request phases of section 4 (firewall and
 * rate-limiting rules) and, with the response fields, to custom error rules.
 */
import { arrayOf, BOOL, BYTES, INT, IP, mapOf } from "../types";
import { toByteString } from "../values";
import { defineFieldSet, type FieldDef } from "./field-set";
import { HeaderMap } from "./header-map";
import { queryArgs } from "./input";

const STRING_ARRAY = arrayOf(BYTES);
const STRING_ARRAY_MAP = mapOf(STRING_ARRAY);

export const REQUEST_FIELDS: Readonly<Record<string, FieldDef>> = {
  "http.host": {
    type: BYTES,
    source: "the zone host: lower-case, no trailing dot, no port (as the zone lookup names it)",
    extract: (f) => toByteString(f.ruleUrl.host),
  },
  "http.request.method": {
    type: BYTES,
    source: "request method (upper-case)",
    extract: (f) => f.input.request.method.toUpperCase(),
  },
  "http.request.uri": {
    type: BYTES,
    source: "normalised path and query (`/a?b=1`)",
    extract: (f) => toByteString(f.ruleUrl.path + f.ruleUrl.search),
  },
  "http.request.uri.path": {
    type: BYTES,
    source: "URL path, normalised (the zone's `url_normalization`)",
    extract: (f) => toByteString(f.ruleUrl.path),
  },
  "http.request.uri.query": {
    type: BYTES,
    source: "query without `?`, as sent",
    extract: (f) => toByteString(f.ruleUrl.search.slice(1)),
  },
  "http.request.full_uri": {
    type: BYTES,
    source: "`scheme://` + zone host + normalised path + query (no port, no fragment)",
    extract: (f) => toByteString(f.ruleUrl.fullUri),
  },
  "http.request.uri.args": {
    type: STRING_ARRAY_MAP,
    source: "query arguments, not decoded",
    extract: (f) => queryArgs(f.ruleUrl.search),
  },
  "raw.http.request.uri": {
    type: BYTES,
    source: "path (not normalised) and query",
    extract: (f) => toByteString(f.url.pathname + f.url.search),
  },
  "raw.http.request.uri.path": {
    type: BYTES,
    source: "URL path, not normalised",
    extract: (f) => toByteString(f.url.pathname),
  },
  "raw.http.request.uri.query": {
    type: BYTES,
    source: "query without `?`, as sent",
    extract: (f) => toByteString(f.url.search.slice(1)),
  },
  "raw.http.request.full_uri": {
    type: BYTES,
    source: "`scheme://` + zone host + path (not normalised) + query",
    extract: (f) => toByteString(f.ruleUrl.rawFullUri),
  },
  "http.request.headers": {
    type: STRING_ARRAY_MAP,
    source: "request headers, lower-case names",
    extract: (f) => new HeaderMap(f.input.request.headers),
  },
  "http.request.headers.names": {
    type: STRING_ARRAY,
    source: "header names (lower-case: the Fetch API lower-cases them)",
    extract: (f) => [...f.input.request.headers.keys()].map(toByteString),
  },
  "http.request.headers.values": {
    type: STRING_ARRAY,
    source: "header values, same order as the names",
    extract: (f) => [...f.input.request.headers.values()].map(toByteString),
  },
  "http.user_agent": {
    type: BYTES,
    source: '`User-Agent` header, "" when absent',
    extract: (f) => f.header("user-agent"),
  },
  "http.referer": { type: BYTES, source: '`Referer` header, "" when absent', extract: (f) => f.header("referer") },
  "http.cookie": { type: BYTES, source: '`Cookie` header, "" when absent', extract: (f) => f.header("cookie") },
  "ip.src": { type: IP, source: "`CF-Connecting-IP` only, validated; missing otherwise", extract: (f) => f.clientIp() },
  "ip.src.country": {
    type: BYTES,
    source: "`request.cf.country`; missing when absent",
    extract: (f) => {
      const country = f.cf("country");
      return typeof country === "string" ? toByteString(country) : undefined;
    },
  },
  "ip.src.asnum": {
    type: INT,
    source: "`request.cf.asn`; missing when absent",
    extract: (f) => {
      const asn = f.cf("asn");
      return typeof asn === "number" ? asn : undefined;
    },
  },
  ssl: { type: BOOL, source: "URL scheme is https", extract: (f) => f.url.protocol === "https:" },
  true: { type: BOOL, source: "always true (match everything)", extract: () => true },
};

/** Firewall and rate-limiting rules (docs/producers.md): request fields only, no `http.response.*`/`edge.response.*`. */
export const requestFields = defineFieldSet(REQUEST_FIELDS);
