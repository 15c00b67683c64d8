/** Ray IDs: 16 lower-case hex characters, random per request (contract §1.1). */
export function newRayId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
