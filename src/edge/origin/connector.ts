/**
 * The seam between the proxy and the network. The proxy only ever reaches an origin through a `Connector`:
 * `fetch` on the happy path, and the two diagnostic probes after a failure (so the happy path pays nothing
 * for classification). Production uses `runtimeConnector` (global fetch + `cloudflare:sockets`); tests of
 * failures that must never leave loopback (522, 523, 1016: docs/origin.md) select a fault-injecting connector
 * through the test-only `ORIGIN_FAULTS` binding (see faults.ts).
 */
import type { OriginTarget } from "../../shared/origin-url";
import { faultInjectingConnector, parseFaults } from "./faults";
import { probeTcp, probeTls } from "./probe";

/** What a bare TCP connection attempt to the origin showed. */
export type TcpProbe =
  | { readonly kind: "open" }
  | { readonly kind: "refused"; readonly detail: string }
  | { readonly kind: "unreachable"; readonly detail: string }
  | { readonly kind: "unresolvable"; readonly detail: string }
  | { readonly kind: "timeout" };

/** How the origin answered a TLS ClientHello (only asked after a failed https fetch). */
export type TlsProbe =
  /** A ServerHello: the origin speaks TLS and the handshake proceeds, so the certificate was refused. */
  | { readonly kind: "server-hello" }
  /** A TLS alert: the origin speaks TLS but refuses the handshake. */
  | { readonly kind: "alert" }
  /** Bytes that are not TLS (e.g. plain HTTP on the port). */
  | { readonly kind: "not-tls" }
  /** Closed, silent, or unreachable. */
  | { readonly kind: "no-answer" };

export interface Connector {
  /** Sends the upstream request. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  probeTcp(target: OriginTarget, timeoutMs: number): Promise<TcpProbe>;
  probeTls(target: OriginTarget, timeoutMs: number): Promise<TlsProbe>;
}

/** The real network: the runtime's fetch and `connect()`. */
export const runtimeConnector: Connector = {
  fetch: (url, init) => fetch(url, init),
  probeTcp,
  probeTls,
};

/** The test-only binding that selects the fault-injecting connector; absent in wrangler.toml. */
export interface ConnectorVars {
  ORIGIN_FAULTS?: string;
}

let memoKey: string | undefined;
let memo: Connector = runtimeConnector;

/** The connector for this deployment: the runtime's, unless `ORIGIN_FAULTS` injects faults. Memoised. */
export function connectorFor(env: ConnectorVars): Connector {
  const key = env.ORIGIN_FAULTS;
  if (key === undefined || key === "") return runtimeConnector;
  if (key !== memoKey) {
    memoKey = key;
    memo = faultInjectingConnector(runtimeConnector, parseFaults(key));
  }
  return memo;
}
