/**
 * What the origin servers' globalSetup hands to the tests (vitest `provide` / `inject`).
 * Shared by the Node side (test/servers/global-setup.ts) and the workerd tests (test/workers/edge/origin/**),
 * so it holds only types and constants.
 */

/** The body of the origin's `/status/503-json` (non-ASCII on purpose): must reach the client byte for byte. */
export const ORIGIN_503_BODY = '{"origin":"down for maintenance","retry":true,"bytes":"\u00e9\u2603"}\n';
/** The bytes the origin serves as `image/png` under `/asset/` (not a real image: only the bytes matter). */
export const ASSET_PNG: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80];

export interface OriginPorts {
  /** node:http origin with well-behaved modes (healthy, echo, slow body, 503 JSON, big bodies, ...). */
  readonly http: number;
  /** Raw TCP server that misbehaves per path: hang, reset, garbage, empty reply, bad header. */
  readonly raw: number;
  /** HTTPS origin with a self-signed certificate (generated with openssl at setup). */
  readonly tls: number;
  /** Raw TCP origin whose event streams and NDJSON break after their headers (stream-origin.ts). */
  readonly stream: number;
  /** A loopback port with nothing listening: connections are refused. */
  readonly closed: number;
  /** The alert tests' webhook receiver (webhook-receiver.ts). */
  readonly webhook: number;
  /** The control server of origins a test can stop and start (switch-origin.ts). */
  readonly switchboard: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    originPorts: OriginPorts;
  }
}

/** One request the webhook receiver kept (webhook-receiver.ts): its headers, its body, the status it answered. */
export interface ReceivedWebhook {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly answered: number;
}
