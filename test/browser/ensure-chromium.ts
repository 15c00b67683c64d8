/**
 * Global setup of the browser project: Debian's `chromium` must be installed (the suite skips nothing).
 * When the binary is missing and we are root (CI, a fresh machine), install it with apt; otherwise fail with the
 * command to run. `CHROMIUM_PATH` overrides the binary.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM_PATH} is missing: run \`sudo apt-get update && sudo apt-get install -y chromium\``);
  }
  console.log(`${CHROMIUM_PATH} is missing: installing Debian's chromium with apt-get (a few minutes)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "chromium"], { stdio: "inherit", env });
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
}
