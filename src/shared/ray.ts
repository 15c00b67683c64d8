/**
 * Ray IDs: 16 lower-case hex characters, random per request (docs/errors.md); `newRayId` makes one, `isRayId`
 * checks one.
 */
import { toHex } from "./crypto";

// Random bytes are drawn 4 KiB (512 IDs) at a time: one `getRandomValues` call costs far more than the 8 bytes it
// returns (≈ 4.7 µs per call in Node's WebCrypto). Ray IDs identify occurrences; they are not secrets, so handing
// out consecutive slices of one CSPRNG draw is as good as a draw per ID.
const POOL = new Uint8Array(4096);
let offset = POOL.length;

export function newRayId(): string {
  if (offset === POOL.length) {
    crypto.getRandomValues(POOL);
    offset = 0;
  }
  const i = offset;
  offset += 8;
  return toHex(POOL, i, i + 8);
}

/** The shape of a Ray ID (docs/errors.md): the one check, for a Ray ID read back from a header, a path or a page. */
export const RAY_ID_PATTERN = /^[0-9a-f]{16}$/;

/** Whether `text` is a Ray ID: exactly 16 lower-case hex characters. */
export function isRayId(text: string): boolean {
  return RAY_ID_PATTERN.test(text);
}
