/** Ray IDs: 16 lower-case hex characters, random per request (contract §1.1). */

// Byte → two hex digits, built once: per-byte `toString(16).padStart(2, "0")` showed up at 5–8 % of an
// error's CPU in the profile of the errors benchmark (docs/benchmarks.md).
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

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
  const b = POOL;
  const i = offset;
  offset += 8;
  return (
    HEX[b[i]!]! +
    HEX[b[i + 1]!]! +
    HEX[b[i + 2]!]! +
    HEX[b[i + 3]!]! +
    HEX[b[i + 4]!]! +
    HEX[b[i + 5]!]! +
    HEX[b[i + 6]!]! +
    HEX[b[i + 7]!]!
  );
}
