/**
 * Ray IDs: 16 lower-case hex characters, random per request (docs/errors.md); `newRayId` makes one, `isRayId`
 * checks one. The first four characters are the isolate's current *lane*: random, drawn again every LANE_MS, so the
 * Ray IDs an isolate hands out within one analytics batching window share it and their records go to one shard of
 * the zone's analytics (docs/analytics.md "Shards": the shard is the lane modulo the zone's shard count, so a Ray
 * lookup goes straight to its shard, and each isolate's batches go to one object at a time, not to every shard).
 */
import { toHex } from "./crypto";

// Random bytes are drawn 4 KiB (512 IDs) at a time: one `getRandomValues` call costs far more than the 8 bytes it
// returns (≈ 4.7 µs per call in Node's WebCrypto). Ray IDs identify occurrences; they are not secrets, so handing
// out consecutive slices of one CSPRNG draw is as good as a draw per ID.
const POOL = new Uint8Array(4096);
let offset = POOL.length;

/** How long an isolate keeps its lane: longer than the analytics batching window (250 ms at most). */
export const LANE_MS = 1000;
let lane = "";
let laneUntil = 0;

/** The isolate's lane at `now`: four hex characters, drawn again every LANE_MS. */
export function currentLane(now: number = Date.now()): string {
  if (now >= laneUntil) {
    lane = toHex(crypto.getRandomValues(new Uint8Array(2)), 0, 2);
    laneUntil = now + LANE_MS;
  }
  return lane;
}

export function newRayId(): string {
  if (offset === POOL.length) {
    crypto.getRandomValues(POOL);
    offset = 0;
  }
  const i = offset;
  offset += 8;
  // 48 random bits after the lane: unique enough within a zone's 7 days of records at any rate this service takes.
  return currentLane() + toHex(POOL, i + 2, i + 8);
}

/** The shape of a Ray ID (docs/errors.md): the one check, for a Ray ID read back from a header, a path or a page. */
export const RAY_ID_PATTERN = /^[0-9a-f]{16}$/;

/** Whether `text` is a Ray ID: exactly 16 lower-case hex characters. */
export function isRayId(text: string): boolean {
  return RAY_ID_PATTERN.test(text);
}
