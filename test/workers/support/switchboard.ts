/**
 * Origins a test stops, starts and counts (test/servers/switch-origin.ts), driven through the switchboard's control
 * port from inside workerd: each test gets an origin of its own.
 */
import { loopback, ports } from "./origin";

export interface SwitchedOrigin {
  readonly port: number;
  /** `http://127.0.0.1:{port}`. */
  readonly url: string;
  /** Connections refused from now on (its listening socket and open connections closed). */
  stop(): Promise<void>;
  /** Listening again on the same port. */
  start(): Promise<void>;
  /**
   * How it answers: normally, by resetting each connection, never, `ms` milliseconds later (`slow`), or with
   * status `s` (`status`).
   */
  mode(
    m: "ok" | "reset" | "hang" | "slow" | "status",
    o?: { readonly ms?: number; readonly s?: number },
  ): Promise<void>;
  /** TCP connections accepted and requests answered so far. */
  stats(): Promise<{ connections: number; requests: number }>;
}

async function control(path: string, method = "POST"): Promise<unknown> {
  const res = await fetch(`${loopback(ports.switchboard)}${path}`, { method });
  if (!res.ok) throw new Error(`switchboard ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A new origin, answering normally. */
export async function switchedOrigin(): Promise<SwitchedOrigin> {
  const { port } = (await control("/origins")) as { port: number };
  return {
    port,
    url: loopback(port),
    stop: async () => void (await control(`/origins/${port}/stop`)),
    start: async () => void (await control(`/origins/${port}/start`)),
    mode: async (m, o = {}) => void (await control(`/origins/${port}/mode?m=${m}&ms=${o.ms ?? 0}&s=${o.s ?? 200}`)),
    stats: async () => (await control(`/origins/${port}/stats`, "GET")) as { connections: number; requests: number },
  };
}
