/**
 * The compiled IP access rules of one zone version (docs/producers.md): built once, then each request costs a binary
 * search per address family and one Set lookup, whatever the number of rules (never a linear scan).
 *
 * Ranges (single addresses are /32 or /128 ranges) are sorted by start; `maxEnd[i]` is the largest end among the
 * first i+1 ranges, so "some range covers x" is `maxEnd[last start ≤ x] ≥ x`: one binary search. Only on a match
 * do we walk back to name the rule (for the log line).
 */
import type { IpAddress } from "../../shared/ip";
import { parseIp } from "../../shared/ip";
import { parseCidr, unmapV4 } from "../../state/zone/access-rules/address";
import type { AccessRules } from "../../state/zone/access-rules/types";

export type AccessDecision =
  | { readonly kind: "allow" }
  /** 1006: the client's address is blocked by an `ip` or `ip_range` rule. */
  | { readonly kind: "block_ip"; readonly ruleId: string }
  /** 1009: the client's country is blocked by a `country` rule. */
  | { readonly kind: "block_country"; readonly ruleId: string };

export interface AccessClient {
  /** From `CF-Connecting-IP`, validated (src/shared/client-address.ts `clientAddress`); undefined when there is none. */
  readonly address: IpAddress | undefined;
  /** From `request.cf.country`, `[A-Z]{2}` (src/shared/country.ts `clientCountry`). */
  readonly country: string | undefined;
}

class RangeIndex<T extends number | bigint> {
  private readonly starts: T[];
  private readonly ends: T[];
  private readonly maxEnd: T[];
  private readonly ids: string[];

  constructor(ranges: { start: T; end: T; id: string }[]) {
    ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    this.starts = ranges.map((r) => r.start);
    this.ends = ranges.map((r) => r.end);
    this.ids = ranges.map((r) => r.id);
    this.maxEnd = [];
    for (const r of ranges) {
      const previous = this.maxEnd[this.maxEnd.length - 1];
      this.maxEnd.push(previous !== undefined && previous > r.end ? previous : r.end);
    }
  }

  get size(): number {
    return this.starts.length;
  }

  /** The id of a rule whose range covers `x`, or undefined. */
  find(x: T): string | undefined {
    let lo = 0;
    let hi = this.starts.length - 1;
    let last = -1; // index of the last start ≤ x
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] as T) <= x) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (last === -1 || (this.maxEnd[last] as T) < x) return undefined;
    for (let i = last; i >= 0; i--) if ((this.ends[i] as T) >= x) return this.ids[i];
    return undefined;
  }
}

export class AccessMatcher {
  private readonly v4: RangeIndex<number>;
  private readonly v6: RangeIndex<bigint>;
  private readonly countries: Map<string, string>;

  constructor(config: AccessRules) {
    const v4: { start: number; end: number; id: string }[] = [];
    const v6: { start: bigint; end: bigint; id: string }[] = [];
    this.countries = new Map();
    for (const rule of config.rules) {
      if (rule.target === "country") {
        if (!this.countries.has(rule.value)) this.countries.set(rule.value, rule.id);
        continue;
      }
      // Values were validated and normalised when written (validate.ts); a value that no longer parses is skipped.
      let start: IpAddress | undefined;
      let end: IpAddress | undefined;
      if (rule.target === "ip") start = end = parseIp(rule.value);
      else {
        const parsed = parseCidr(rule.value);
        if (!("kind" in parsed)) [start, end] = parsed.range;
      }
      if (typeof start === "number" && typeof end === "number") v4.push({ start, end, id: rule.id });
      else if (typeof start === "bigint" && typeof end === "bigint") v6.push({ start, end, id: rule.id });
    }
    this.v4 = new RangeIndex(v4);
    this.v6 = new RangeIndex(v6);
  }

  /** True when no rule exists: the request phase skips the lookup altogether. */
  get empty(): boolean {
    return this.v4.size === 0 && this.v6.size === 0 && this.countries.size === 0;
  }

  /** Address rules first (1006), then country rules (1009), as listed in docs/producers.md. */
  decide(client: AccessClient): AccessDecision {
    const address = client.address;
    if (address !== undefined) {
      const id =
        typeof address === "number" ? this.v4.find(address) : (this.v6.find(address) ?? this.mappedV4(address));
      if (id !== undefined) return { kind: "block_ip", ruleId: id };
    }
    if (client.country !== undefined) {
      const id = this.countries.get(client.country);
      if (id !== undefined) return { kind: "block_country", ruleId: id };
    }
    return ALLOW;
  }

  /** `::ffff:192.0.2.1` is the IPv4 client 192.0.2.1 (RFC 4291 §2.5.5.2): IPv4 rules apply to it too. */
  private mappedV4(address: bigint): string | undefined {
    const v4 = unmapV4(address);
    return v4 === undefined ? undefined : this.v4.find(v4);
  }
}

const ALLOW: AccessDecision = { kind: "allow" };
