/**
 * Webhooks signed as the Standard Webhooks specification defines
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md): a secret is
 * `whsec_` + base64 of random bytes; an attempt carries `webhook-id` (the event's id, the same on every retry),
 * `webhook-timestamp` (seconds since the epoch, of the attempt) and `webhook-signature`: `v1,` + base64 of
 * HMAC-SHA256, keyed with the secret's bytes, over `{id}.{timestamp}.{body}`. Pure but for WebCrypto.
 */
import { randomBytes } from "../../shared/crypto";

const PREFIX = "whsec_";
/** 32 random bytes: the specification asks for 24 to 64. */
const SECRET_BYTES = 32;

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new signing secret, shown once (in the answer that creates its policy). */
export function newWebhookSecret(): string {
  return PREFIX + toBase64(randomBytes(SECRET_BYTES));
}

/** A new event id (`msg_` + 32 hex characters): one event, one id, reused by every retry. */
export function newEventId(): string {
  return `msg_${[...randomBytes(16)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The `webhook-signature` value of one attempt. */
export async function signWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The headers of one attempt. */
export async function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now: number = Date.now(),
): Promise<Record<string, string>> {
  const timestamp = Math.floor(now / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signWebhook(secret, id, timestamp, body),
  };
}
