/**
 * Headers as the Rules language sees them: `Map<Array<String>>` with lower-case keys (docs/rules-language.md).
 *
 * Lazy: `m["accept"]` is one `Headers.get` per distinct name (remembered for the rest of the evaluation), for the
 * first 16 distinct names of an evaluation; past those, and for `[*]`, `size` or iteration (in key order, as
 * wirefilter iterates maps), the whole map is read once. Measured (docs/benchmarks.md "third pass"): a
 * whole-list read per error cost ~20 µs of workerd CPU more under load than the 5 lookups of 21 rules (the second
 * pass read it past 4 names), while for the 60 names of 300 rules it is cheaper than 60 lookups (38 → 28 µs per
 * error in a loop, and no dearer under load). Keys that are not lower-case header names are simply absent, so
 * `http.request.headers["Accept"]` is missing, as on Cloudflare, even though `Headers.get` ignores case.
 * The Fetch API joins repeated headers with ", ", so a name has one entry, except `set-cookie` (one per header).
 */
import { fromByteString, toByteString, type Value } from "../values";

const LOWER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** Distinct names looked up one by one before the whole header list is read once (see above). */
const MAX_SINGLE_LOOKUPS = 16;

export class HeaderMap implements ReadonlyMap<string, Value> {
  private all: Map<string, Value> | undefined;
  /** Keys already looked up (the same header is typically read by many rules of one evaluation). */
  private readonly looked = new Map<string, Value | undefined>();

  constructor(private readonly headers: Headers) {}

  get(key: string): Value | undefined {
    if (this.all) return this.all.get(key);
    if (this.looked.has(key)) return this.looked.get(key);
    // Rules naming many different headers: one pass over the request's headers answers them all. Same values.
    if (this.looked.size >= MAX_SINGLE_LOOKUPS) return this.entriesMap().get(key);
    const value = this.lookup(key);
    this.looked.set(key, value);
    return value;
  }

  private lookup(key: string): Value | undefined {
    if (!LOWER_TOKEN.test(key)) return undefined;
    if (key === "set-cookie") {
      const cookies = this.headers.getSetCookie();
      return cookies.length === 0 ? undefined : cookies.map(toByteString);
    }
    const value = this.headers.get(fromByteString(key));
    return value === null ? undefined : [toByteString(value)];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get size(): number {
    return this.entriesMap().size;
  }

  forEach(callback: (value: Value, key: string, map: ReadonlyMap<string, Value>) => void): void {
    this.entriesMap().forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[string, Value]> {
    return this.entriesMap().entries();
  }

  keys(): MapIterator<string> {
    return this.entriesMap().keys();
  }

  values(): MapIterator<Value> {
    return this.entriesMap().values();
  }

  [Symbol.iterator](): MapIterator<[string, Value]> {
    return this.entries();
  }

  private entriesMap(): Map<string, Value> {
    if (this.all) return this.all;
    const all = new Map<string, Value>();
    for (const [name, value] of this.headers) {
      if (name !== "set-cookie") all.set(toByteString(name), [toByteString(value)]);
    }
    const cookies = this.headers.getSetCookie();
    if (cookies.length > 0) all.set("set-cookie", cookies.map(toByteString));
    this.all = new Map([...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return this.all;
  }
}
