/**
 * Fault injection for origin failures that cannot be produced on loopback (docs/origin.md: no test sends traffic
 * or DNS queries off loopback). Selected only by the test-only binding `ORIGIN_FAULTS` (never set in
 * wrangler.toml), a JSON object mapping an origin hostname to the network condition it simulates:
 *
 *   {"nxdomain.test": "unresolvable", "unroutable.test": "unreachable", "blackhole.test": "blackhole"}
 *
 * Requests to other hosts go to the real network unchanged. A faulted host behaves the way the real network
 * would for that condition — fetch fails (or never answers, for a black hole) and the probes report the
 * condition — so the proxy's real classification code runs, not a shortcut.
 */
import type { Connector, TcpProbe } from "./network";

export const FAULTS = ["unresolvable", "unreachable", "blackhole"] as const;
export type Fault = (typeof FAULTS)[number];

/** Parses the binding; entries that are not known faults are ignored (it is a test-only knob). */
export function parseFaults(raw: string): ReadonlyMap<string, Fault> {
  const faults = new Map<string, Fault>();
  try {
    const data: unknown = JSON.parse(raw);
    if (typeof data === "object" && data !== null) {
      for (const [host, fault] of Object.entries(data)) {
        if ((FAULTS as readonly unknown[]).includes(fault)) faults.set(host.toLowerCase(), fault as Fault);
      }
    }
  } catch {
    // a malformed test knob injects nothing
  }
  return faults;
}

export function faultInjectingConnector(base: Connector, faults: ReadonlyMap<string, Fault>): Connector {
  const faultOf = (hostname: string): Fault | undefined => faults.get(hostname);
  return {
    fetch(url, init) {
      const fault = faultOf(new URL(url).hostname);
      if (fault === undefined) return base.fetch(url, init);
      if (fault === "blackhole") return new Promise<Response>(() => undefined); // SYNs into the void
      return Promise.reject(new Error(`Network connection lost. (injected: ${fault})`));
    },
    async probeTcp(target, timeoutMs) {
      const fault = faultOf(target.hostname);
      if (fault === undefined) return base.probeTcp(target, timeoutMs);
      return simulatedProbe(fault, timeoutMs);
    },
    async probeTls(target, timeoutMs) {
      if (faultOf(target.hostname) === undefined) return base.probeTls(target, timeoutMs);
      return { kind: "no-answer" };
    },
  };
}

async function simulatedProbe(fault: Fault, timeoutMs: number): Promise<TcpProbe> {
  switch (fault) {
    case "unresolvable":
      return { kind: "unresolvable", detail: "DNS lookup failed (injected)" };
    case "unreachable":
      return { kind: "unreachable", detail: "network unreachable (injected)" };
    case "blackhole":
      // SYNs into the void: nothing happens until the prober gives up.
      await new Promise((resolve) => setTimeout(resolve, timeoutMs + 50));
      return { kind: "timeout" };
  }
}
