/**
 * The request URL as rules see it (docs/rules-language.md) and as the origin gets it (docs/origin.md), one object per request:
 *   - the host is the zone, exactly as the zone lookup names it (`zoneOf`: lower-case, no trailing dot, no port);
 *     a port the client wrote in `Host` is not part of any rule field, so `shop.example.:8080` cannot escape a
 *     rule written for `shop.example`;
 *   - the path is normalised per the zone's `url_normalization` setting (url-normalise.ts), computed on first use
 *     and memoised, so a request normalises at most once whichever phases read it, and never when none does;
 *   - the query is the query as sent.
 * Pure: no bindings.
 */
import { normalisePath, type UrlNormalization } from "./url-normalise";

export class RuleUrl {
  private normalised: string | undefined;

  constructor(
    /** The request's URL as parsed (the original: what the origin gets unless the scope is `both`). */
    readonly url: URL,
    /** The zone host (`zoneOf(url)`, or the zone a preview names). */
    readonly host: string,
    readonly normalization: UrlNormalization,
  ) {}

  /** The path rules see: normalised unless the scope is `none`. */
  get path(): string {
    if (this.normalised === undefined) {
      const raw = this.url.pathname;
      this.normalised = this.normalization.scope === "none" ? raw : normalisePath(raw, this.normalization.type);
    }
    return this.normalised;
  }

  /** The query with its `?`, or "" (never normalised). */
  get search(): string {
    return this.url.search;
  }

  /** `scheme://host` + path + query: the zone host, no port, no fragment. */
  get fullUri(): string {
    return `${this.url.protocol}//${this.host}${this.path}${this.url.search}`;
  }

  /** `scheme://host` + the original path + query (the `raw.` fields). */
  get rawFullUri(): string {
    return `${this.url.protocol}//${this.host}${this.url.pathname}${this.url.search}`;
  }

  /** The path and query forwarded to the origin: the normalised path only when the scope is `both`. */
  get originPath(): string {
    return this.normalization.scope === "both" ? this.path + this.url.search : this.url.pathname + this.url.search;
  }
}
