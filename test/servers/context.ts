/**
 * What the origin servers' globalSetup hands to the tests (vitest `provide` / `inject`).
 * Shared by the Node side (test/servers/global-setup.ts) and the workerd tests (test/workers/origin/**),
 * so it holds types only.
 */
export interface OriginPorts {
  /** node:http origin with well-behaved modes (healthy, echo, slow body, 503 JSON, big bodies, ...). */
  readonly http: number;
  /** Raw TCP server that misbehaves per path: hang, reset, garbage, empty reply, bad header. */
  readonly raw: number;
  /** HTTPS origin with a self-signed certificate (generated with openssl at setup). */
  readonly tls: number;
  /** A loopback port with nothing listening: connections are refused. */
  readonly closed: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    originPorts: OriginPorts;
  }
}
