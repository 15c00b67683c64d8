/**
 * CPU time of a child process, from /proc (Linux). Throughput on a shared 2-core box moves with whatever
 * else runs; the CPU time the server process spends per request moves much less, so suites report it
 * next to req/s to say what a request costs the server itself. Elsewhere (no /proc) it is simply absent.
 */
import { readdir, readFile } from "node:fs/promises";

/** Linux USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every mainstream Linux ABI. */
const CLOCK_TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly pid: number;
  readonly command: string;
  readonly parent: number;
  /** User + system CPU seconds consumed so far. */
  readonly cpuSeconds: number;
}

function parseStat(pid: number, text: string): ProcStat | null {
  // "pid (comm) state ppid … utime stime …": comm may hold spaces or parentheses, so cut at the last ")".
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open === -1 || close === -1) return null;
  const fields = text.slice(close + 2).split(" ");
  const parent = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (![parent, utime, stime].every(Number.isFinite)) return null;
  return { pid, command: text.slice(open + 1, close), parent, cpuSeconds: (utime + stime) / CLOCK_TICKS_PER_SECOND };
}

async function statOf(pid: number): Promise<ProcStat | null> {
  try {
    return parseStat(pid, await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null; // gone, or not Linux
  }
}

/** PIDs of this process's direct children named `command` (e.g. "workerd"); empty where /proc is absent. */
export async function childPids(command: string): Promise<Set<number>> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return new Set();
  }
  const stats = await Promise.all(entries.filter((name) => /^\d+$/.test(name)).map((name) => statOf(Number(name))));
  return new Set(
    stats
      .filter((stat): stat is ProcStat => stat !== null && stat.parent === process.pid && stat.command === command)
      .map((stat) => stat.pid),
  );
}

/** A probe of one process's CPU seconds, or `null` when it cannot be read. */
export type CpuProbe = () => Promise<number | null>;

/** The CPU probe of process `pid`. */
export function cpuProbe(pid: number): CpuProbe {
  return async () => (await statOf(pid))?.cpuSeconds ?? null;
}

/**
 * A nanosecond-resolution CPU probe of process `pid`: the sum of `/proc/<pid>/task/*\/schedstat` (time on CPU per
 * thread, in ns). `/proc/<pid>/stat` counts in 10 ms clock ticks, too coarse for one start-up (~50 ms); threads that
 * already exited are not counted (workerd's threads live as long as the process). `null` where it cannot be read.
 */
export function preciseCpuProbe(pid: number): CpuProbe {
  return async () => {
    try {
      const tasks = await readdir(`/proc/${pid}/task`);
      const times = await Promise.all(
        tasks.map(async (task) => {
          const text = await readFile(`/proc/${pid}/task/${task}/schedstat`, "utf8").catch(() => "0");
          return Number(text.split(" ")[0]) || 0;
        }),
      );
      return times.reduce((a, b) => a + b, 0) / 1e9;
    } catch {
      return null;
    }
  };
}
