/**
 * Alert policies of a zone's error analytics (docs/analytics.md "Alerts"): their shape and limits, the validation of
 * an API body into a policy, the webhook target's rules, and the evaluation step (firing and resolving with
 * hysteresis). Pure: no bindings. The object that stores and evaluates them is zone-analytics.ts (shard 0 of the
 * zone); the webhook signature is webhook.ts.
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "../../shared/result";
import { normaliseHostname } from "../../shared/host";
import { described, fields, int, later, num, oneOf, parseWith, text, type Output } from "../../shared/schema";
import { parseIpv4, parseIpv6 } from "../../shared/ip";
import { CODE_RANGE, MAX_RECORDED_PATH, SOURCES } from "./record";

/** How many policies one zone may hold. */
export const MAX_ALERT_POLICIES = 10;
/** A threshold window, in whole minutes (its counts are the minute counts, retention 3 days). */
export const THRESHOLD_WINDOW = { min: 1, max: 60 } as const;
/** The burn-rate windows: the short one 1–60 minutes, the long one up to 3 days (the minute counts' retention). */
export const BURN_SHORT_WINDOW = { min: 1, max: 60 } as const;
export const BURN_LONG_WINDOW = { min: 5, max: 4320 } as const;
/** A policy resolves after this many consecutive evaluations with its condition false (default, and bounds). */
export const RESOLVE_AFTER = { default: 3, min: 1, max: 60 } as const;
export const MAX_NAME = 100;
export const MAX_TARGET = 2048;
/** The SLO, in percent of requests without an origin error. */
export const SLO_RANGE = { min: 50, max: 99.999 } as const;
export const BURN_RATE_RANGE = { min: 1, max: 1000 } as const;
/** The Google SRE Workbook's fast-burn page: 2% of a 30-day budget in 1 hour (docs/analytics.md "Alerts"). */
export const DEFAULT_BURN = { long: 60, short: 5, rate: 14.4 } as const;
/** The largest count a policy names (`above` errors, `min_requests`). */
const MAX_COUNT = 1_000_000_000;

/**
 * The edge codes that mean the origin failed (docs/origin.md): with every origin response ≥ 500 passed through, these
 * are the "origin errors" of a burn-rate policy.
 */
export const ORIGIN_FAILURE_CODES = [502, 520, 521, 522, 523, 524, 525, 526, 1016] as const;

/** A threshold's filter: `path` is the recorded path, exactly (no query; docs/analytics.md "Records"). */
export type AlertFilter = Output<ReturnType<typeof filter>>;

/** What a policy's body says beside its rule. */
type NotTheRule = "name" | "enabled" | "resolve_after" | "webhook";

/**
 * A policy's rule: its body's fields but the name, the switch and the target; a threshold's `resolve_below` (at
 * most `above`) filled in, a burn rate's `slo` a percentage (its error budget is 1 − slo/100).
 */
export type AlertRule =
  | (Omit<Output<ReturnType<typeof thresholdBody>>, NotTheRule> & { readonly resolve_below: number })
  | Omit<Output<ReturnType<typeof burnRateBody>>, NotTheRule>;

/** A stored policy's definition (what the API takes and answers, the secret apart). */
export interface AlertSpec {
  readonly name: string;
  readonly enabled: boolean;
  readonly rule: AlertRule;
  readonly resolve_after: number;
  readonly webhook_url: string;
}

/** Where a webhook may go, from the Worker's settings (src/shared/settings.ts). */
export interface TargetPolicy {
  readonly apiHosts: ReadonlySet<string>;
  /** WEBHOOK_LOOPBACK=allow: `wrangler dev` and the tests only (check-config --deploy refuses it). */
  readonly loopbackAllowed: boolean;
}

/** Why a body or a target is refused; each kind has its own API code (src/api/kit/codes.ts). */
export type AlertRefusal = {
  readonly kind:
    | "invalid-alert-policy"
    | "invalid-alert-window"
    | "invalid-webhook-target"
    | "webhook-target-api-host"
    | "webhook-target-private";
  readonly message: string;
};

const refuse = (kind: AlertRefusal["kind"], message: string): Result<never, AlertRefusal> => err({ kind, message });
const policy = (message: string): Result<never, AlertRefusal> => refuse("invalid-alert-policy", message);
const window = (message: string): Result<never, AlertRefusal> => refuse("invalid-alert-window", message);

const shown = (v: unknown): string => (JSON.stringify(v) ?? String(v)).slice(0, 100);
/** A refusal that shows the value refused (`; got 61`). */
const got =
  (message: string) =>
  (issue: { readonly input?: unknown }): string =>
    `${message}; got ${shown(issue.input ?? null)}`;

export const ALERT_KINDS = ["threshold", "burn_rate"] as const;

/** An unknown field's refusal, naming the fields a policy of that kind has. */
const notAField = (kind: string, shape: object): string =>
  `is not a field of a ${kind} policy; its fields are ${Object.keys(shape).join(", ")}`;

/*
 * The body's parts are made by functions, inside `ALERT_POLICY_BODY`'s maker (made on its first parse or when the
 * document is built), not at module evaluation.
 */

/** The fields of every policy; each kind adds its own (a field of the other kind is unknown). */
const common = () => ({
  name: text(
    // One line with something on it: no control character, not only spaces.
    { min: 1, max: MAX_NAME, pattern: /^(?=[\s\S]*\S)[^\x00-\x1f\x7f]*$/ },
    `must be one line of 1 to ${MAX_NAME} characters`,
  ),
  enabled: z._default(z.boolean({ error: "must be true or false" }), true),
  resolve_after: z._default(
    described(
      int(
        RESOLVE_AFTER.min,
        RESOLVE_AFTER.max,
        `must be an integer from ${RESOLVE_AFTER.min} to ${RESOLVE_AFTER.max} (evaluations)`,
      ),
      "Consecutive evaluations (one a minute) with the condition false before it resolves",
    ),
    RESOLVE_AFTER.default,
  ),
  min_requests: z._default(described(int(1, MAX_COUNT), "A rate over fewer requests is no evidence"), 1),
  webhook: fields(
    {
      url: described(
        text({ min: 1, max: MAX_TARGET }, `must be an absolute https URL of at most ${MAX_TARGET} characters`),
        'An https URL (docs/analytics.md "Webhook targets")',
      ),
    },
    "is not a field of webhook (only url)",
    'must be {"url": "https://…"}',
  ),
});

const BELOW = "must be a number from 0 to above";
const CODE_RULE = `must be an integer from ${CODE_RANGE.min} to ${CODE_RANGE.max} (a catalog code or an origin status)`;

const filter = () =>
  fields(
    {
      code: z.optional(int(CODE_RANGE.min, CODE_RANGE.max, CODE_RULE)),
      source: z.optional(
        described(
          oneOf(SOURCES, 'must be "edge" or "origin"'),
          "Who caused the error: origin = its 5xx passed through and a failed origin (502, 520–526, 1016); edge = every other error the edge generated",
        ),
      ),
      path: z.optional(
        described(
          text(
            { max: MAX_RECORDED_PATH, pattern: /^\/[^\x00-\x20\x7f?#]*$/ },
            `must be a path as recorded: starting with /, at most ${MAX_RECORDED_PATH} characters, no query, spaces or controls`,
          ),
          "The recorded path, exactly (no query)",
        ),
      ),
    },
    "is not a filter; filters are code, source, path",
    "must be an object of code, source and path",
  );

function thresholdBody() {
  const shape = {
    kind: z.literal("threshold"),
    ...common(),
    metric: oneOf(["errors", "error_rate"], got('must be "errors" or "error_rate"')),
    window_minutes: int(
      THRESHOLD_WINDOW.min,
      THRESHOLD_WINDOW.max,
      got(`must be an integer from ${THRESHOLD_WINDOW.min} to ${THRESHOLD_WINDOW.max}`),
    ),
    // Its bounds depend on the metric: checked after the parse.
    above: described(
      z.number({ error: "must be a number" }),
      `errors: an integer from 1 to ${MAX_COUNT}; error_rate: (0, 1]. Fires at value ≥ above`,
    ),
    resolve_below: z.optional(
      described(
        z.number({ error: BELOW }).check(z.minimum(0, { error: BELOW })),
        "Resolves below this (≤ above; default above)",
      ),
    ),
    filter: z._default(filter(), {}),
  };
  return fields(shape, notAField("threshold", shape));
}

function burnRateBody() {
  const shape = {
    kind: z.literal("burn_rate"),
    ...common(),
    slo: described(
      num(SLO_RANGE.min, SLO_RANGE.max, `must be a percentage from ${SLO_RANGE.min} to ${SLO_RANGE.max} (e.g. 99.9)`),
      "Percent of requests without an origin error",
    ),
    long_window_minutes: z._default(int(BURN_LONG_WINDOW.min, BURN_LONG_WINDOW.max), DEFAULT_BURN.long),
    short_window_minutes: z._default(int(BURN_SHORT_WINDOW.min, BURN_SHORT_WINDOW.max), DEFAULT_BURN.short),
    burn_rate: z._default(num(BURN_RATE_RANGE.min, BURN_RATE_RANGE.max), DEFAULT_BURN.rate),
  };
  return fields(shape, notAField("burn_rate", shape));
}

/** `POST`/`PUT /zones/{zone}/analytics/alerts…`: a policy of one of the two kinds, chosen by `kind`. */
export const ALERT_POLICY_BODY = later(
  () =>
    z.discriminatedUnion("kind", [thresholdBody(), burnRateBody()], {
      error: (issue) =>
        issue.code === "invalid_union"
          ? `must be ${ALERT_KINDS.map((k) => `"${k}"`).join(" or ")}; got ${shown(kindOf(issue.input) ?? null)}`
          : 'the body must be a JSON object (docs/analytics.md "Alerts")',
    }),
  {
    id: "AlertPolicyBody",
    description:
      "kind threshold: metric, window_minutes, above (resolve_below, filter, min_requests optional); kind burn_rate: " +
      'slo (long_window_minutes, short_window_minutes, burn_rate, min_requests optional). docs/analytics.md "Alerts".',
    example: {
      // `source: origin` counts every error the origin caused: its 5xx passed through and a refused, timed-out or
      // unreachable origin (502, 520–526, 1016), as the burn rate's origin errors do; so this fires when it is down.
      name: "Origin failing",
      kind: "threshold",
      metric: "error_rate",
      window_minutes: 5,
      above: 0.05,
      resolve_below: 0.01,
      filter: { source: "origin" },
      min_requests: 20,
      webhook: { url: "https://hooks.example.com/edge-alerts" },
    },
  },
);

function kindOf(input: unknown): unknown {
  return typeof input === "object" && input !== null ? (input as { readonly kind?: unknown }).kind : undefined;
}

/** The fields whose refusal is a window's (its own code, docs/analytics.md "Alerts"). */
const WINDOW_FIELDS = new Set(["window_minutes", "long_window_minutes", "short_window_minutes"]);

/**
 * An API body (POST or PUT) into a policy: the first refusal, named with its field (a window's and the webhook URL's
 * have their own codes); then what the schema cannot say (bounds that depend on another field, the target's host).
 */
export function parseAlertBody(body: unknown, targets: TargetPolicy): Result<AlertSpec, AlertRefusal> {
  const parsed = parseWith(ALERT_POLICY_BODY, body, { cap: 1 });
  if (!parsed.ok) {
    const first = parsed.error.listed[0];
    const message =
      first === undefined ? "is not valid" : first.path === "" ? first.message : `${first.path} ${first.message}`;
    if (first !== undefined && WINDOW_FIELDS.has(first.path)) return window(message);
    if (first?.path === "webhook.url") return refuse("invalid-webhook-target", message);
    return policy(message);
  }
  const given = parsed.value;
  const target = checkTarget(given.webhook.url, targets);
  if (!target.ok) return target;
  const rule = checkRule(given);
  if (!rule.ok) return rule;
  const { name, enabled, resolve_after } = given;
  return ok({ name, enabled, rule: rule.value, resolve_after, webhook_url: target.value });
}

/** What the schema cannot say of a rule: bounds that depend on another field. */
function checkRule(given: Output<typeof ALERT_POLICY_BODY>): Result<AlertRule, AlertRefusal> {
  if (given.kind === "burn_rate") {
    const { kind, slo, long_window_minutes, short_window_minutes, burn_rate, min_requests } = given;
    if (short_window_minutes >= long_window_minutes)
      return window("short_window_minutes must be shorter than long_window_minutes");
    return ok({ kind, slo, long_window_minutes, short_window_minutes, burn_rate, min_requests });
  }
  const { kind, metric, window_minutes, above, filter, min_requests } = given;
  if (metric === "errors" ? !Number.isInteger(above) || above < 1 || above > MAX_COUNT : !(above > 0 && above <= 1)) {
    return policy(
      metric === "errors"
        ? `above must be an integer from 1 to ${MAX_COUNT} (errors in the window)`
        : "above must be a number in (0, 1] (errors ÷ requests in the window)",
    );
  }
  const resolve_below = given.resolve_below ?? above;
  if (resolve_below > above) return policy(`resolve_below must be a number from 0 to above (${above})`);
  return ok({ kind, metric, window_minutes, above, resolve_below, filter, min_requests });
}

/**
 * A webhook target (docs/analytics.md "Webhook targets"): an absolute https URL of at most 2,048 characters without
 * credentials; never a host of API_HOSTS (on any port); never a private, reserved, loopback or link-local IP literal
 * (or an IPv6 form embedding an IPv4 address) or `localhost`, except loopback when `WEBHOOK_LOOPBACK=allow` (`wrangler dev`, the tests), where loopback may use
 * http. Returns the URL as the URL parser writes it.
 */
export function checkTarget(raw: unknown, targets: TargetPolicy, field = "webhook.url"): Result<string, AlertRefusal> {
  const bad = (why: string): Result<never, AlertRefusal> => refuse("invalid-webhook-target", `${field} ${why}`);
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_TARGET) {
    return bad(`must be an absolute https URL of at most ${MAX_TARGET} characters`);
  }
  if (!URL.canParse(raw)) return bad("is not a URL");
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") return bad("must use https");
  if (url.username !== "" || url.password !== "") return bad("must not hold credentials (user:password@)");
  if (url.hash !== "") return bad("must not hold a fragment (#…)");
  const host = normaliseHostname(url.hostname);
  if (targets.apiHosts.has(host)) {
    return refuse(
      "webhook-target-api-host",
      `${field} ${host} is a host of the management API (API_HOSTS): it never calls this service's API`,
    );
  }
  const where = addressClass(host);
  if (where === "private" || where === "reserved" || (where === "loopback" && !targets.loopbackAllowed)) {
    return refuse(
      "webhook-target-private",
      `${field} ${host} is a ${where} address: it must be a public host` +
        (where === "loopback" ? " (loopback only under `wrangler dev`, WEBHOOK_LOOPBACK=allow)" : ""),
    );
  }
  if (url.protocol === "http:" && where !== "loopback") {
    return bad("must use https (http only for a loopback receiver under `wrangler dev`)");
  }
  return ok(url.href);
}

type AddressClass = "loopback" | "private" | "reserved" | "public";

/**
 * IPv6 prefixes whose addresses carry an IPv4 address inside them (RFC 6052 §2.1 NAT64 64:ff9b::/96 and its local
 * 64:ff9b:1::/48, RFC 3056 6to4 2002::/16, RFC 4380 Teredo 2001::/32, RFC 4291 §2.5.5 IPv4-compatible ::/96 and
 * IPv4-mapped ::ffff:0:0/96, RFC 6145 SIIT ::ffff:0:0:0/96): a translator or relay turns them into an IPv4
 * destination, so they are how a private IPv4 target hides behind a public-looking IPv6 literal. A webhook names
 * the IPv4 address itself instead.
 */
const EMBEDS_V4: readonly (readonly [bigint, number])[] = [
  [0x0064ff9bn << 96n, 96],
  [0x0064ff9b0001n << 80n, 48],
  [0x2002n << 112n, 16],
  [0x20010000n << 96n, 32],
  [0n, 96],
  [0xffffn << 32n, 96],
  [0xffff0000n << 32n, 96],
];

/**
 * Ranges no public receiver listens on (IANA special-purpose registries, RFC 6890): multicast 224/4 and ff00::/8,
 * reserved 240/4 (broadcast included), benchmarking 198.18/15 (RFC 2544), protocol assignments 192.0.0/24,
 * documentation 192.0.2/24, 198.51.100/24, 203.0.113/24 and 2001:db8::/32 (RFC 5737, RFC 3849), the deprecated
 * site-local fec0::/10 (RFC 3879), discard-only 100::/64 (RFC 6666).
 */
const RESERVED_V4: readonly (readonly [number, number])[] = [
  [0xe0000000, 4],
  [0xf0000000, 4],
  [0xc6120000, 15],
  [0xc0000000, 24],
  [0xc0000200, 24],
  [0xc6336400, 24],
  [0xcb007100, 24],
];
const RESERVED_V6: readonly (readonly [bigint, number])[] = [
  [0xffn << 120n, 8],
  [0xfecn << 116n, 10],
  [0x20010db8n << 96n, 32],
  [0x0100n << 112n, 64],
];

const inV4 = (a: number, [net, len]: readonly [number, number]): boolean =>
  Math.floor(a / 2 ** (32 - len)) === Math.floor(net / 2 ** (32 - len));
const inV6 = (a: bigint, [net, len]: readonly [bigint, number]): boolean =>
  a >> BigInt(128 - len) === net >> BigInt(128 - len);

/**
 * `loopback` (127/8, ::1, localhost and *.localhost), `private` (0/8, RFC 1918, RFC 6598 shared, link-local
 * 169.254/16 and fe80::/10, unique-local fc00::/7, ::), `reserved` (RESERVED_V4, RESERVED_V6, and every IPv6 form
 * that embeds an IPv4 address: EMBEDS_V4), else `public`. Only IP literals and the localhost names can be judged
 * here: a name resolving to a private address cannot be seen by a Worker (documented).
 */
export function addressClass(host: string): AddressClass {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const v4 = bare.includes(":") ? undefined : parseIpv4(bare);
  if (v4 !== undefined) return classOfV4(v4);
  const v6 = bare.includes(":") ? parseIpv6(bare) : undefined;
  if (v6 === undefined) return "public";
  if (v6 === 1n) return "loopback";
  if (v6 === 0n) return "private";
  const top = Number(v6 >> 112n);
  if ((top & 0xfe00) === 0xfc00 || (top & 0xffc0) === 0xfe80) return "private";
  if (EMBEDS_V4.some((r) => inV6(v6, r)) || RESERVED_V6.some((r) => inV6(v6, r))) return "reserved";
  return "public";
}

function classOfV4(a: number): AddressClass {
  const first = a >>> 24;
  const second = (a >>> 16) & 0xff;
  if (first === 127) return "loopback";
  const isPrivate =
    first === 0 ||
    first === 10 ||
    (first === 172 && second >= 16 && second <= 31) ||
    (first === 192 && second === 168) ||
    (first === 100 && second >= 64 && second <= 127) ||
    (first === 169 && second === 254);
  if (isPrivate) return "private";
  return RESERVED_V4.some((r) => inV4(a, r)) ? "reserved" : "public";
}

/** What an evaluation counts over one window (fan-out.ts `zoneAlertCounts`). */
export type AlertMatch =
  | { readonly kind: "errors"; readonly filter: AlertFilter }
  /** Origin responses ≥ 500 passed through, and the edge codes of ORIGIN_FAILURE_CODES. */
  | { readonly kind: "origin-errors" };

export interface WindowQuery {
  /** Inclusive start and exclusive end, whole minutes (ms). */
  readonly since: number;
  readonly until: number;
  readonly match: AlertMatch;
}

export interface WindowCount {
  readonly errors: number;
  readonly requests: number;
}

const MINUTE_MS = 60_000;

/**
 * The windows a policy reads when evaluated at `now`: whole minutes that have ended (the minute in progress is
 * still being recorded), the last `window` of them.
 */
export function windowsOf(rule: AlertRule, now: number): readonly WindowQuery[] {
  const until = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const last = (minutes: number, match: AlertMatch): WindowQuery => ({
    since: until - minutes * MINUTE_MS,
    until,
    match,
  });
  if (rule.kind === "threshold") return [last(rule.window_minutes, { kind: "errors", filter: rule.filter })];
  const origin: AlertMatch = { kind: "origin-errors" };
  return [last(rule.long_window_minutes, origin), last(rule.short_window_minutes, origin)];
}

/** A policy's state (ok or firing, since when), kept by the object across evaluations. */
export interface AlertState {
  readonly status: "ok" | "firing";
  readonly since: number;
  /** Evaluations in a row with the condition false while firing. */
  readonly clearStreak: number;
  /** The value last evaluated (errors, a rate, or the short window's burn rate); null when not enough requests. */
  readonly value: number | null;
  readonly evaluatedAt: number | null;
}

export interface Evaluated {
  readonly state: AlertState;
  readonly transition: "fired" | "resolved" | null;
}

const rateOf = (c: WindowCount, min: number): number | null => (c.requests < min ? null : c.errors / c.requests);

/**
 * One evaluation (docs/analytics.md "Alerts", the exact rules):
 * - threshold, `errors`: the value is the errors in the window; `error_rate`: errors ÷ requests (null, never firing,
 *   below `min_requests`). Fires at value ≥ `above`; while firing, a value below `resolve_below` counts one clear
 *   evaluation, anything else resets the count.
 * - burn_rate: burn(w) = error rate of origin errors over w ÷ (1 − slo/100); fires when burn(long) ≥ burn_rate AND
 *   burn(short) ≥ burn_rate (the SRE Workbook's multiwindow, multi-burn-rate alert); the condition is false when
 *   either is below (or has too few requests).
 * - it resolves after `resolve_after` clear evaluations in a row.
 */
export function evaluate(spec: AlertSpec, state: AlertState, counts: readonly WindowCount[], now: number): Evaluated {
  const rule = spec.rule;
  let fire: boolean;
  let clear: boolean;
  let value: number | null;
  if (rule.kind === "threshold") {
    const c = counts[0] ?? { errors: 0, requests: 0 };
    value = rule.metric === "errors" ? c.errors : rateOf(c, rule.min_requests);
    fire = value !== null && value >= rule.above;
    clear = value === null || value < rule.resolve_below;
  } else {
    const budget = 1 - rule.slo / 100;
    const burn = (c: WindowCount | undefined): number | null => {
      const r = c === undefined ? null : rateOf(c, rule.min_requests);
      return r === null ? null : r / budget;
    };
    const long = burn(counts[0]);
    const short = burn(counts[1]);
    value = short === null ? null : Math.round(short * 1000) / 1000;
    fire = long !== null && short !== null && long >= rule.burn_rate && short >= rule.burn_rate;
    clear = !fire;
  }
  if (state.status === "ok") {
    if (fire)
      return { state: { status: "firing", since: now, clearStreak: 0, value, evaluatedAt: now }, transition: "fired" };
    return { state: { ...state, clearStreak: 0, value, evaluatedAt: now }, transition: null };
  }
  const streak = clear ? state.clearStreak + 1 : 0;
  if (streak >= spec.resolve_after) {
    return { state: { status: "ok", since: now, clearStreak: 0, value, evaluatedAt: now }, transition: "resolved" };
  }
  return { state: { ...state, clearStreak: streak, value, evaluatedAt: now }, transition: null };
}

/**
 * The wait before each retry of a webhook, after attempt 1, 2, …: 7 attempts over about 8.6 hours, then the event is
 * `failed` (docs/analytics.md "Delivery").
 */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** One attempt's time limit. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Events kept per policy (the newest; a pending one is never dropped). */
export const EVENTS_KEPT = 100;
