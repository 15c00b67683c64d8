/**
 * How many draft previews one token may run on one zone (docs/custom-errors.md "Draft preview", "Bounds"): at most
 * `concurrent` at once, and a token bucket of `burst` refilled at `perSecond`. Past either, the preview answers 429
 * in the v4 envelope (code `PREVIEW_LIMITED_CODE`) with `Retry-After`, before its body is read.
 *
 * Why per isolate: what a preview can cost is this isolate's CPU (validating and compiling a draft is synchronous
 * work every request on the isolate waits behind), so the bound sits where the cost is, and costs no round trip.
 * Why per token and zone: a token that may read a zone may preview it; no token can spend another's allowance, and a
 * token's allowance on one zone is not shared with its others. Pairs are kept in a bounded LRU (`tracked`): a pair
 * pushed out starts afresh, which takes `tracked` other pairs in between, each a zone the token may read.
 */
import type { Principal } from "../kit/auth";
import { API_CODES } from "../kit/codes";
import { BoundedCache } from "../../shared/bounded-cache";

export const PREVIEW_BOUNDS = {
  /** Draft previews of one token on one zone running at once (a client may ask for the four formats together). */
  concurrent: 4,
  /** Draft previews of one token on one zone in a burst… */
  burst: 20,
  /** …and then per second. */
  perSecond: 2,
  /** (token, zone) pairs remembered per isolate, the least recently used forgotten first. */
  tracked: 1024,
} as const;

/** The envelope code of a draft preview refused by the bound (HTTP 429). */
export const PREVIEW_LIMITED_CODE = API_CODES["preview-limited"].code;

export type PreviewAdmission =
  | { readonly kind: "admitted"; readonly release: () => void }
  | { readonly kind: "limited"; readonly why: "concurrent" | "rate"; readonly retryAfter: number };

interface Allowance {
  /** Previews that may start now (fractional while refilling). */
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
  running: number;
}

const allowances = new BoundedCache<string, Allowance>({ capacity: PREVIEW_BOUNDS.tracked });
/** A number per principal object: tokens are told apart by identity, not by their (operator-chosen) names. */
const principalIds = new WeakMap<Principal, number>();
let nextPrincipalId = 0;

function principalId(principal: Principal): number {
  let id = principalIds.get(principal);
  if (id === undefined) {
    id = nextPrincipalId++;
    principalIds.set(principal, id);
  }
  return id;
}

/**
 * Admits one draft preview of `principal` on `zone` at `now`, or says why not and when to retry (whole seconds,
 * at least 1). An admitted preview must `release()` when it ends, whatever its answer.
 */
export function admitPreview(principal: Principal, zone: string, now = Date.now()): PreviewAdmission {
  return admit(allowances, PREVIEW_BOUNDS, `${principalId(principal)}\u0000${zone}`, now);
}

/**
 * A replay (replay.ts) evaluates up to 1,000 recorded errors, as many as 250 draft previews' five runs: one runs
 * at a time per token and zone, and a burst of 3 is refilled at one per 10 s, so one token keeps at most one replay
 * of a zone running on an isolate (docs/custom-errors.md "Replay", "Bounds").
 */
export const REPLAY_BOUNDS = { concurrent: 1, burst: 3, perSecond: 0.1, tracked: 1024 } as const;

const replayAllowances = new BoundedCache<string, Allowance>({ capacity: REPLAY_BOUNDS.tracked });

/** As `admitPreview`, for a replay, with REPLAY_BOUNDS and an allowance of its own. */
export function admitReplay(principal: Principal, zone: string, now = Date.now()): PreviewAdmission {
  return admit(replayAllowances, REPLAY_BOUNDS, `${principalId(principal)}\u0000${zone}`, now);
}

interface Bounds {
  readonly concurrent: number;
  readonly burst: number;
  readonly perSecond: number;
}

function admit(table: BoundedCache<string, Allowance>, bounds: Bounds, key: string, now: number): PreviewAdmission {
  const { burst, perSecond, concurrent } = bounds;
  let allowance = table.get(key);
  if (allowance === undefined) {
    allowance = { tokens: burst, at: now, running: 0 };
    table.set(key, allowance);
  }
  allowance.tokens = Math.min(burst, allowance.tokens + (Math.max(0, now - allowance.at) / 1000) * perSecond);
  allowance.at = now;
  if (allowance.running >= concurrent) return { kind: "limited", why: "concurrent", retryAfter: 1 };
  if (allowance.tokens < 1) {
    const retryAfter = Math.max(1, Math.ceil((1 - allowance.tokens) / perSecond));
    return { kind: "limited", why: "rate", retryAfter };
  }
  allowance.tokens -= 1;
  allowance.running += 1;
  const held = allowance;
  let released = false;
  return {
    kind: "admitted",
    release: () => {
      if (released) return;
      released = true;
      held.running -= 1;
    },
  };
}
