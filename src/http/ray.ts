/** Ray IDs: 16 lower-case hex characters, random per request (contract §1.1). */

// Byte → two hex digits, built once: per-byte `toString(16).padStart(2, "0")` showed up at 5–8 % of an
// error's CPU in the profile of the errors benchmark (docs/benchmarks.md).
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const bytes = new Uint8Array(8);

export function newRayId(): string {
  crypto.getRandomValues(bytes);
  return (
    HEX[bytes[0]!]! + HEX[bytes[1]!]! + HEX[bytes[2]!]! + HEX[bytes[3]!]! +
    HEX[bytes[4]!]! + HEX[bytes[5]!]! + HEX[bytes[6]!]! + HEX[bytes[7]!]!
  );
}
