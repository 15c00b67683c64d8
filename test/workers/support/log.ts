/** The Worker's log as tests read it: one JSON object a line (src/shared/log.ts; docs/configuration.md "Events"). */
import { vi } from "vitest";

/** Runs `run` and collects the `event` lines it wrote to console.error. */
export async function errorLines<T>(
  event: string,
  run: () => Promise<T>,
): Promise<{ value: T; lines: Record<string, unknown>[] }> {
  const spy = vi.spyOn(console, "error");
  const value = await run();
  const lines = spy.mock.calls
    .flatMap((call) => String(call[0]).split("\n"))
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === event);
  spy.mockRestore();
  return { value, lines };
}
