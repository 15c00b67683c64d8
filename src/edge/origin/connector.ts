/**
 * The seam between the proxy and the network. The proxy only ever reaches an origin through a `Connector`:
 * `fetch` on the happy path, and the two diagnostic probes after a failure (so the happy path pays nothing
 * for classification). Production uses `runtimeConnector` (global fetch + `cloudflare:sockets`); tests of
 * failures that must never leave loopback (522, 523, 1016: docs/origin.md) select a fault-injecting connector
 * through the test-only `ORIGIN_FAULTS` binding (see faults.ts). The `Connector` type and the probes' outcomes
 * are in network.ts, which the probes and the fault injector share.
 */
import { faultInjectingConnector, parseFaults } from "./faults";
import type { Connector } from "./network";
import { probeTcp, probeTls } from "./probe";

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
