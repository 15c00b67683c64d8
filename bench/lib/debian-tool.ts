/**
 * Native tools the bench drives (wrk, valgrind) come from Debian's packages: installed with apt-get when missing and
 * we are root, else an error that says how. Checked once per tool per process.
 */
import { execFileSync } from "node:child_process";

const present = new Set<string>();

/**
 * Makes sure `command` is on PATH by running it with `probeArgs`. Only "not found" means missing: some tools exit
 * non-zero after printing their version (`wrk --version` exits 1).
 */
export function ensureDebianTool(command: string, probeArgs: readonly string[], debianPackage = command): void {
  if (present.has(command)) return;
  try {
    execFileSync(command, probeArgs, { stdio: "ignore" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      if (process.getuid?.() !== 0) {
        throw new Error(`${command} is missing: run \`sudo apt-get install -y ${debianPackage}\``);
      }
      execFileSync("apt-get", ["install", "-y", debianPackage], { stdio: "inherit" });
    }
  }
  present.add(command);
}
