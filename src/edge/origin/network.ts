/**
 * What the proxy asks of the network, as types: the `Connector` seam (connector.ts) and what each diagnostic probe
 * can show. A module of its own so that the real probes (probe.ts), the fault injector (faults.ts) and the
 * classifier (classify.ts) share the vocabulary without importing the module that composes them.
 */
import type { OriginTarget } from "../../shared/origin-url";

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

/** The proxy's only way to an origin: `fetch` on the happy path, the two probes after a failure. */
export interface Connector {
  /** Sends the upstream request. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  probeTcp(target: OriginTarget, timeoutMs: number): Promise<TcpProbe>;
  probeTls(target: OriginTarget, timeoutMs: number): Promise<TlsProbe>;
}
