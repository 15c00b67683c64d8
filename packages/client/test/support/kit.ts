/**
 * The conformance kit, read through its package (`@edge-errors/conformance`, packages/conformance) as any client's
 * tests would: the package's `exports` map is exercised, not a path into the repository.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** One file of the kit (`json.json`, `overlay.json`, …), parsed. */
export function readKit<T>(file: string): T[] {
  return JSON.parse(readFileSync(require.resolve(`@edge-errors/conformance/${file}`), "utf8")) as T[];
}
