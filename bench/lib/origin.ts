/** The example origin (scripts/example-origin.mjs) on a free loopback port, in a process of its own. */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

export async function startExampleOrigin(root: string): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [resolve(root, "scripts/example-origin.mjs"), "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line);
    if (match?.[1]) {
      lines.close();
      child.stdout?.resume();
      return { url: match[1], process: child };
    }
  }
  throw new Error("the example origin did not start");
}
