/**
 * `parseStreamError(data)` (docs/client.md "Streams"): the edge error a broken stream's final frame carries. When an
 * origin's `text/event-stream` or NDJSON stream breaks after its headers (a reset, or silence past the idle limit),
 * the service ends it with a frame holding the problem object (docs/agents.md "Streams"): an `event: error` whose
 * `data` is the problem JSON, or an NDJSON line `{"error": {…}}`. Takes that event's `data` (what an SSE parser such
 * as `eventsource-parser`, or a browser `EventSource` listener for `error`, gives) or that line; anything else, or
 * a problem that is not an edge error's (no `edge_error: true`), is `null`, so a stream's own `error` events, which
 * carry whatever the origin chose, are left to the caller.
 */
import { fromProblem } from "./mcp.js";
import { isEdgeFields } from "./parse.js";
import type { EdgeError } from "./types.js";

export function parseStreamError(data: string): EdgeError | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  // An NDJSON stream's last line wraps the problem, so it cannot be taken for one of the stream's own records.
  const problem = "error" in value && !("edge_error" in value) ? value.error : value;
  return isEdgeFields(problem) ? fromProblem(problem, "stream-error") : null;
}
