/**
 * What field extractors read: the request, plus the error being answered for custom error rules
 * (docs/custom-errors.md, docs/rules-language.md). `RequestFacts` parses the URL and builds header maps at most once per evaluation and
 * only when a field needs them.
 */
import { zoneOf } from "../../shared/host";
import { RuleUrl } from "../../shared/rule-url";
import { DEFAULT_URL_NORMALIZATION } from "../../shared/url-normalise";
import { clientAddress } from "../../shared/client-address";
import { toByteString, type Value, type ValueMap } from "../values";

export interface ErrorInfo {
  /** The status about to be returned (origin's, or the service's). */
  readonly status: number;
  /** The 1xxx code, 0 when none (docs/rules-language.md). */
  readonly code1xxx: number;
  readonly errorType: "1xxx" | "5xx" | "";
  /** The error response's headers (an origin's error response, or the generated one). */
  readonly responseHeaders?: Headers;
}

export interface RuleInput {
  readonly request: Request;
  /** The request's URL when the caller has already parsed it (the Worker parses it once per request). */
  readonly url?: URL;
  /**
   * The URL as rules see it (docs/rules-language.md): the zone host and the path normalised per the zone's setting. When
   * absent, the host is `zoneOf(url)` and the path is normalised with the published defaults.
   */
  readonly ruleUrl?: RuleUrl;
  readonly error?: ErrorInfo;
}

export class RequestFacts {
  private parsedUrl: URL | undefined;
  constructor(readonly input: RuleInput) {}

  private view: RuleUrl | undefined;

  get url(): URL {
    this.parsedUrl ??= this.input.ruleUrl?.url ?? this.input.url ?? new URL(this.input.request.url);
    return this.parsedUrl;
  }

  /** The host, path and query every URL field reads (one host everywhere: docs/rules-language.md). */
  get ruleUrl(): RuleUrl {
    this.view ??= this.input.ruleUrl ?? new RuleUrl(this.url, zoneOf(this.url), DEFAULT_URL_NORMALIZATION);
    return this.view;
  }

  /** A request header as a byte string; "" when absent (Cloudflare's header fields are empty, not missing). */
  header(name: string): string {
    return toByteString(this.input.request.headers.get(name) ?? "");
  }

  /**
   * A property of `request.cf` (set by the edge; absent in tests and local runs). Read structurally so this pure
   * module also type-checks and runs outside workerd (benchmarks in Node).
   */
  cf(name: "country" | "asn"): unknown {
    const cf = (this.input.request as { readonly cf?: Readonly<Record<string, unknown>> }).cf;
    return cf?.[name];
  }

  /** `ip.src` only from `CF-Connecting-IP`, validated; never from `X-Forwarded-For` (docs/rules-language.md). */
  clientIp(): Value | undefined {
    return clientAddress(this.input.request)?.address;
  }
}

/** Query arguments as `Map<Array<String>>`, not decoded (docs/rules-language.md); repeated names keep every value. */
export function queryArgs(search: string): ValueMap {
  const map = new Map<string, string[]>();
  const query = search.startsWith("?") ? search.slice(1) : search;
  if (query === "") return map;
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = toByteString(eq === -1 ? pair : pair.slice(0, eq));
    const value = toByteString(eq === -1 ? "" : pair.slice(eq + 1));
    const list = map.get(name);
    if (list) list.push(value);
    else map.set(name, [value]);
  }
  return map;
}
