// scripts/check-config.ts imports src/api/kit/auth.ts for its `parseApiTokens` (the Worker's own parser, not a copy).
// The module also holds the token comparison, which uses workerd's `crypto.subtle.timingSafeEqual` (not in Node's
// types); check-config never calls it, so it is only declared here for the Node-side type check.
interface SubtleCrypto {
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}
