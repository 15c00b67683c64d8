/** IP access rules (docs/producers.md, docs/configuration.md): validation at write time, the presented shape, the compiled matcher. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAddress, parseCidr } from "../../../../src/state/zone/access-rules/address";
import { clientAddress } from "../../../../src/shared/client-address";
import { AccessMatcher } from "../../../../src/edge/request-phases/ip-access";
import { presentAccessRules, type AccessRules } from "../../../../src/state/zone/access-rules/types";
import { ACCESS_RULE_LIMITS, parseAccessRules } from "../../../../src/state/zone/access-rules/validate";
import type { FieldIssue } from "../../../../src/shared/validation";

import { parseIp } from "../../../../src/shared/ip";

/**
 * Counts the reads of the IPv4 index's arrays (`starts`, `ends`, `maxEnd` of src/edge/request-phases/ip-access.ts):
 * how much of the index one lookup touches, the same on any machine, where a timer only measured the machine.
 */
function countIndexReads(m: AccessMatcher): { count: number } {
  const reads = { count: 0 };
  const index: unknown = Reflect.get(m, "v4");
  if (typeof index !== "object" || index === null) throw new Error("AccessMatcher has no v4 index");
  for (const name of ["starts", "ends", "maxEnd"]) {
    const array: unknown = Reflect.get(index, name);
    if (!Array.isArray(array)) throw new Error(`the v4 index has no array ${name}`);
    const counted = new Proxy(array, {
      get(target, key, receiver): unknown {
        if (typeof key === "string" && /^\d+$/.test(key)) reads.count += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    Reflect.set(index, name, counted);
  }
  return reads;
}

let n = 0;
const newId = () => (++n).toString(16).padStart(32, "0");
const rule = (target: string, value: string, extra: Record<string, unknown> = {}) => ({
  mode: "block",
  configuration: { target, value },
  ...extra,
});
const valid = (body: unknown): AccessRules => {
  const parsed = parseAccessRules(body, { newId });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
};
const failures = (body: unknown): FieldIssue<string>[] => {
  const parsed = parseAccessRules(body, { newId });
  if (parsed.ok) throw new Error("expected a refusal");
  return [...parsed.error.listed];
};

describe("validation", () => {
  it("normalises values: RFC 5952 addresses, network address of a range, upper-case country", () => {
    const stored = valid({
      rules: [
        rule("ip", " 192.0.2.7 "),
        rule("ip", "2001:DB8:0:0:0:0:0:1"),
        rule("ip_range", "198.51.100.77/24"),
        rule("ip_range", "2001:db8:0:0:1::/48"),
        rule("country", "de", { notes: "test" }),
      ],
    });
    expect(stored.rules.map((r) => [r.target, r.value])).toEqual([
      ["ip", "192.0.2.7"],
      ["ip", "2001:db8::1"],
      ["ip_range", "198.51.100.0/24"],
      ["ip_range", "2001:db8::/48"],
      ["country", "DE"],
    ]);
    expect(stored.rules[4]?.notes).toBe("test");
    expect(stored.rules.every((r) => /^[0-9a-f]{32}$/.test(r.id))).toBe(true);
  });

  it("the presented shape is the published rule object and can be PUT back unchanged", () => {
    const stored = valid({ rules: [rule("ip", "192.0.2.1"), rule("country", "FR")] });
    const presented = presentAccessRules(stored);
    expect(presented.rules[0]).toEqual({
      id: stored.rules[0]?.id,
      mode: "block",
      configuration: { target: "ip", value: "192.0.2.1" },
      notes: "",
    });
    expect(valid(JSON.parse(JSON.stringify(presented)))).toEqual(stored);
  });

  const IP = "must be one IPv4 or IPv6 address (a range needs target ip_range)";
  const COUNTRY = "must be a two-letter country code (ISO 3166-1 alpha-2)";
  const NOTES = "must be a string of at most 1024 characters";
  it.each<[string, unknown, string, string]>([
    ["a non-object body", [], "body", "must be a JSON object {rules: [...]}"],
    ["rules not an array", { rules: {} }, "rules", "must be an array"],
    ["an unknown top-level field", { rules: [], extra: 1 }, "extra", "is not a field of the body"],
    ["a rule not an object", { rules: ["1.2.3.4"] }, "rules[0]", "must be an object"],
    [
      "an unknown rule field",
      { rules: [rule("ip", "1.2.3.4", { scope: "zone" })] },
      "rules[0].scope",
      "is not a field of an access rule",
    ],
    [
      "an unknown configuration field",
      { rules: [{ mode: "block", configuration: { target: "ip", value: "1.2.3.4", x: 1 } }] },
      "rules[0].configuration.x",
      "is not a field of an access rule",
    ],
    [
      "mode challenge",
      { rules: [{ mode: "challenge", configuration: { target: "ip", value: "1.2.3.4" } }] },
      "rules[0].mode",
      "must be one of: block",
    ],
    [
      "mode missing",
      { rules: [{ configuration: { target: "ip", value: "1.2.3.4" } }] },
      "rules[0].mode",
      "must be one of: block",
    ],
    [
      "target asn",
      { rules: [rule("asn", "AS13335")] },
      "rules[0].configuration.target",
      "must be one of: ip, ip_range, country",
    ],
    ["no configuration", { rules: [{ mode: "block" }] }, "rules[0].configuration", "must be an object {target, value}"],
    ["an ip that is a range", { rules: [rule("ip", "1.2.3.0/24")] }, "rules[0].configuration.value", IP],
    ["an ip list", { rules: [rule("ip", "1.2.3.4, 5.6.7.8")] }, "rules[0].configuration.value", IP],
    ["an octet over 255", { rules: [rule("ip", "1.2.3.256")] }, "rules[0].configuration.value", IP],
    [
      "a number value",
      { rules: [rule("ip", 16909060 as unknown as string)] },
      "rules[0].configuration.value",
      "must be a string: an address, a CIDR range or a country code",
    ],
    [
      "a range without prefix",
      { rules: [rule("ip_range", "10.0.0.0")] },
      "rules[0].configuration.value",
      "must be a CIDR range address/prefix",
    ],
    [
      "an IPv4 /0",
      { rules: [rule("ip_range", "0.0.0.0/0")] },
      "rules[0].configuration.value",
      "must have an IPv4 prefix length from /8 to /32",
    ],
    [
      "an IPv4 /33",
      { rules: [rule("ip_range", "10.0.0.0/33")] },
      "rules[0].configuration.value",
      "must have an IPv4 prefix length from /8 to /32",
    ],
    [
      "an IPv6 /8",
      { rules: [rule("ip_range", "2000::/8")] },
      "rules[0].configuration.value",
      "must have an IPv6 prefix length from /16 to /128",
    ],
    [
      "a bad network",
      { rules: [rule("ip_range", "10.0.0/24")] },
      "rules[0].configuration.value",
      "has an invalid network address",
    ],
    ["a country of three letters", { rules: [rule("country", "DEU")] }, "rules[0].configuration.value", COUNTRY],
    ["a country with a digit", { rules: [rule("country", "T1")] }, "rules[0].configuration.value", COUNTRY],
    ["notes not a string", { rules: [rule("ip", "1.2.3.4", { notes: 5 })] }, "rules[0].notes", NOTES],
    ["notes too long", { rules: [rule("ip", "1.2.3.4", { notes: "x".repeat(1025) })] }, "rules[0].notes", NOTES],
    [
      "a malformed id",
      { rules: [rule("ip", "1.2.3.4", { id: "abc" })] },
      "rules[0].id",
      "must be 32 lower-case hex characters (or be left out)",
    ],
  ])("refuses %s", (_label, body, path, message) => {
    const [first] = failures(body);
    expect(first).toMatchObject({ path, message });
  });

  it("names the index of the failing rule and reports every failure", () => {
    const errors = failures({ rules: [rule("ip", "1.2.3.4"), rule("ip", "nope"), rule("country", "x")] });
    expect(errors.map(({ path, message }) => ({ path, message }))).toEqual([
      { path: "rules[1].configuration.value", message: IP },
      { path: "rules[2].configuration.value", message: COUNTRY },
    ]);
  });

  it("refuses a duplicate configuration (after normalisation) and a duplicate id", () => {
    expect(failures({ rules: [rule("ip", "2001:db8::1"), rule("ip", "2001:DB8:0::1")] })).toEqual([
      { kind: "duplicate", path: "rules[1]", message: "has the same configuration as rules[0]" },
    ]);
    const id = "a".repeat(32);
    expect(failures({ rules: [rule("ip", "1.1.1.1", { id }), rule("ip", "1.1.1.2", { id })] })).toEqual([
      { kind: "duplicate", path: "rules[1].id", message: "is already used by rules[0]" },
    ]);
  });

  it(`refuses more than ${ACCESS_RULE_LIMITS.maxRules} rules before looking at any`, () => {
    const rules = Array.from({ length: ACCESS_RULE_LIMITS.maxRules + 1 }, () => "garbage");
    expect(failures({ rules })).toEqual([
      {
        kind: "out-of-range",
        path: "",
        message: `at most ${ACCESS_RULE_LIMITS.maxRules} access rules per zone (got ${ACCESS_RULE_LIMITS.maxRules + 1})`,
      },
    ]);
  });

  it("reports at most a bounded number of failures", () => {
    const rules = Array.from({ length: 500 }, () => rule("ip", "bad"));
    expect(failures({ rules }).length).toBe(ACCESS_RULE_LIMITS.maxReported);
  });
});

describe("addresses", () => {
  it.each([
    ["2001:db8:0:0:0:0:2:1", "2001:db8::2:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["::1", "::1"],
    ["::ffff:192.0.2.1", "::ffff:192.0.2.1"],
    ["1.2.3.4", "1.2.3.4"],
  ])("RFC 5952 text of %s is %s", (input, expected) => {
    expect(formatAddress(parseIp(input)!)).toBe(expected);
  });

  it("formatting round-trips every IPv6 address", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (n) => {
        expect(parseIp(formatAddress(n))).toBe(n);
      }),
    );
  });

  it("a CIDR range covers the whole network", () => {
    const parsed = parseCidr("10.1.2.3/16");
    expect(parsed).toEqual({
      network: parseIp("10.1.0.0"),
      prefix: 16,
      range: [parseIp("10.1.0.0"), parseIp("10.1.255.255")],
    });
  });

  it.each([
    ["192.0.2.1", "192.0.2.1"],
    [" 2001:db8::1 ", "2001:db8::1"],
    ["192.0.2.1, 198.51.100.1", undefined],
    ["192.0.2.1:443", undefined],
    ["unknown", undefined],
    ["", undefined],
  ])("CF-Connecting-IP %j → %s", (header, expected) => {
    const address = clientAddress(
      new Request("https://z.example/", { headers: { "CF-Connecting-IP": header } }),
    )?.address;
    expect(address === undefined ? undefined : formatAddress(address)).toBe(expected);
  });

  it("never reads X-Forwarded-For", () => {
    expect(
      clientAddress(new Request("https://z.example/", { headers: { "X-Forwarded-For": "192.0.2.1" } })),
    ).toBeUndefined();
  });
});

describe("matcher", () => {
  const matcher = (...rules: ReturnType<typeof rule>[]) => new AccessMatcher(valid({ rules }));
  const ip = (text: string) => parseIp(text);

  it("ip and ip_range rules answer block_ip (1006), country rules block_country (1009), address first", () => {
    const m = matcher(rule("ip", "192.0.2.1"), rule("ip_range", "2001:db8::/32"), rule("country", "DE"));
    expect(m.decide({ address: ip("192.0.2.1"), country: undefined }).kind).toBe("block_ip");
    expect(m.decide({ address: ip("192.0.2.2"), country: undefined }).kind).toBe("allow");
    expect(m.decide({ address: ip("2001:db8:ffff::1"), country: undefined }).kind).toBe("block_ip");
    expect(m.decide({ address: ip("2001:db9::1"), country: undefined }).kind).toBe("allow");
    expect(m.decide({ address: ip("198.51.100.1"), country: "DE" }).kind).toBe("block_country");
    expect(m.decide({ address: ip("192.0.2.1"), country: "DE" }).kind).toBe("block_ip");
    expect(m.decide({ address: undefined, country: "FR" }).kind).toBe("allow");
  });

  it("an IPv4-mapped IPv6 client meets the IPv4 rules", () => {
    const m = matcher(rule("ip_range", "192.0.2.0/24"));
    expect(m.decide({ address: ip("::ffff:192.0.2.9"), country: undefined }).kind).toBe("block_ip");
  });

  it("names the rule that matched, also under nested ranges", () => {
    const stored = valid({
      rules: [rule("ip_range", "10.0.0.0/8"), rule("ip_range", "10.1.0.0/16"), rule("ip", "10.2.0.1")],
    });
    const m = new AccessMatcher(stored);
    const ids = stored.rules.map((r) => r.id);
    expect(m.decide({ address: ip("10.1.2.3"), country: undefined })).toEqual({ kind: "block_ip", ruleId: ids[1] });
    expect(m.decide({ address: ip("10.200.0.1"), country: undefined })).toEqual({ kind: "block_ip", ruleId: ids[0] });
    expect(m.decide({ address: ip("10.2.0.1"), country: undefined }).kind).toBe("block_ip");
  });

  it("agrees with a linear scan over random rule sets", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 8, max: 32 })), {
          minLength: 0,
          maxLength: 60,
        }),
        fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { minLength: 1, maxLength: 30 }),
        (ranges, probes) => {
          const rules = [
            ...new Map(
              ranges.map(([a, p]) => [`${formatAddress(Math.floor(a / 2 ** (32 - p)) * 2 ** (32 - p))}/${p}`, p]),
            ).keys(),
          ];
          const m = matcher(...rules.map((r) => rule("ip_range", r)));
          // Random probes rarely land in a range: also probe each range's first address, the one before, and its last.
          const edges = rules.flatMap((r) => {
            const c = parseCidr(r);
            return "kind" in c ? [] : [c.range[0] as number, (c.range[0] as number) - 1, c.range[1] as number];
          });
          for (const probe of [...probes, ...edges]) {
            const linear = rules.some((r) => {
              const c = parseCidr(r);
              return !("kind" in c) && probe >= (c.range[0] as number) && probe <= (c.range[1] as number);
            });
            expect(m.decide({ address: probe, country: undefined }).kind === "block_ip").toBe(linear);
          }
        },
      ),
    );
  });

  it("10,000 rules: a lookup is a binary search, not a scan (counted in reads of the index)", () => {
    const rules = Array.from({ length: 10_000 }, (_, i) => rule("ip", formatAddress(0x0a000000 + i * 3)));
    const m = matcher(...rules);
    const reads = countIndexReads(m);
    expect(m.decide({ address: 0x0a000000 + 9999 * 3, country: undefined }).kind).toBe("block_ip");
    expect(m.decide({ address: 0x0a000000 + 9999 * 3 + 1, country: undefined }).kind).toBe("allow");
    reads.count = 0;
    for (let i = 0; i < 20_000; i++) m.decide({ address: 0x0b000000 + i, country: undefined });
    for (let i = 0; i < 20_000; i++) m.decide({ address: 0x0a000000 + i, country: undefined });
    // A binary search over 10,000 starts reads ⌈log2 10,001⌉ = 14 of them, then a few slots to name the rule: at most
    // 20 reads a lookup, whatever the machine. A scan would read thousands.
    expect(reads.count).toBeGreaterThanOrEqual(40_000 * 13);
    expect(reads.count).toBeLessThanOrEqual(40_000 * 20);
  });

  it("an empty rule set is empty", () => {
    expect(new AccessMatcher({ rules: [] }).empty).toBe(true);
  });
});
