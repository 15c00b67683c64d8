/**
 * The error-path performance work (2026-11-22): "a run where the load generator is a separate native process so the bench process does not share the
 * Worker's cores with its own JavaScript". On Linux with `taskset` (util-linux) and at least 2 CPUs, the Workers'
 * workerd processes (all their threads) get the last CPU and this process (and so the `wrk` it starts, which
 * inherits the mask) the others. Both sides of every ratio are pinned the same way. `restore()` gives this process
 * its previous mask back, so a later suite of the same `npm run bench` runs unpinned.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

export interface Pinning {
  /** One line for the report: where each side ran, or why nothing was pinned. */
  readonly note: string;
  /** Gives this process its previous CPU mask back (a no-op when nothing was pinned). */
  restore(): void;
}

/**
 * Pins the given workerd processes apart from this process (and `clientPids`, e.g. an origin server started
 * before); says why not, and changes nothing, when it cannot.
 */
export function pinApart(serverPids: readonly (number | null)[], clientPids: readonly number[] = []): Pinning {
  const unpinned = (why: string): Pinning => ({ note: `not pinned: ${why}`, restore: () => undefined });
  const cpus = availableParallelism();
  if (process.platform !== "linux") return unpinned("not Linux");
  if (cpus < 2) return unpinned("one CPU");
  if (serverPids.some((pid) => pid === null)) return unpinned("a workerd process id is unknown");
  let previous: string;
  try {
    // `taskset -p PID` prints "pid N's current affinity mask: 3".
    previous = /mask: ([0-9a-f]+)/.exec(
      execFileSync("taskset", ["-p", String(process.pid)], { encoding: "utf8" }),
    )![1]!;
  } catch {
    return unpinned("taskset is missing (Debian package util-linux)");
  }
  const server = String(cpus - 1);
  const others = cpus === 2 ? "0" : `0-${cpus - 2}`;
  for (const pid of serverPids) execFileSync("taskset", ["-a", "-p", "-c", server, String(pid)], { stdio: "ignore" });
  for (const pid of [process.pid, ...clientPids]) {
    execFileSync("taskset", ["-a", "-p", "-c", others, String(pid)], { stdio: "ignore" });
  }
  return {
    note: `workerd pinned to CPU ${server}; this process, wrk and any origin process to CPU ${others} (taskset)`,
    restore: () => execFileSync("taskset", ["-a", "-p", previous, String(process.pid)], { stdio: "ignore" }),
  };
}
