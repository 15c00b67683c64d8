/**
 * `?dry_run=` on management API writes (docs/configuration.md "any write"; the published Rulesets API
 * (https://developers.cloudflare.com/ruleset-engine/rulesets-api/) validates with full authorisation and persists nothing). Published semantics:
 *
 * - only `true` and `false` are valid values; anything else (another spelling, an empty value, the parameter
 *   repeated) is a 400 before any work, so a typo never turns a rehearsal into a real write;
 * - authorisation and validation are the write's own (the handler runs as usual, only the store is skipped:
 *   `editZone` in zone-section.ts reads `dryRun` from the context and applies the route's edit to the document as
 *   read, with the function the zone's writer applies it with, instead of sending it to the writer);
 * - a 200 answers `result: null`, a 204 stays a 204; failures are the write's own failures.
 *
 * A write route that cannot rehearse (the tagging API, which the published platform gives no dry run) refuses the
 * parameter rather than ignoring it: an operator who asked for a dry run must never get a real write.
 */
import { API_CODES } from "./codes";
import { apiSuccess, failureOf, type ApiFailure, type ApiMessage } from "./envelope";
import { err, ok, type Result } from "../../shared/result";
import { trueOrFalse } from "./query";

/** The envelope code of an invalid or unsupported `dry_run` parameter (docs/configuration.md, error table). */
export const DRY_RUN_CODE = API_CODES["invalid-dry-run"].code;

const WRITE_METHODS = new Set(["PUT", "POST", "PATCH", "DELETE"]);

/**
 * The request's `dry_run` for a route: `false` when absent (or not a write), `true` only for exactly `true`.
 * `supported` is whether the route can rehearse.
 */
export function readDryRun(method: string, url: URL, supported: boolean): Result<boolean, ApiFailure> {
  if (!WRITE_METHODS.has(method)) return ok(false);
  const values = url.searchParams.getAll("dry_run");
  if (values.length === 0) return ok(false);
  if (!supported) {
    return err(failureOf("invalid-dry-run", "dry_run is not supported on this endpoint; nothing was done"));
  }
  if (values.length > 1) return err(failureOf("invalid-dry-run", "dry_run must be given once"));
  const [value = ""] = values;
  const given = trueOrFalse(value);
  if (given !== undefined) return ok(given);
  return err(failureOf("invalid-dry-run", `dry_run must be true or false, not ${JSON.stringify(value)}`));
}

/**
 * A rehearsed write's answer: a 200 becomes `result: null` (published), its `messages` kept (the rule linter's
 * warnings, docs/lint.md: a dry run is where they matter most); anything else is returned as it is.
 */
export async function dryRunAnswer(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const body: unknown = await response.json().catch(() => null);
  const messages =
    typeof body === "object" && body !== null && Array.isArray((body as { messages?: unknown }).messages)
      ? (body as { messages: ApiMessage[] }).messages
      : [];
  return apiSuccess(null, { messages });
}
