/**
 * Query strings for query schemas (docs/architecture.md "Request schemas"): a query is read as the object its
 * schema parses, so a listing's bounds, enums and defaults are the validator's and, through `queryParameters`
 * (openapi.ts), the OpenAPI document's.
 */
import * as z from "zod/mini";
import { FLAGS, int, named, oneOf, type Message } from "../../shared/schema";
import { err, ok, type Result } from "../../shared/result";
import { oneIssue, type Issues } from "../../shared/validation";

/** A positive integer as a query writes it; anything else stays text, which the schema refuses as no integer. */
const NUMERAL = /^[1-9][0-9]{0,8}$/;

/** The largest `page` a page-number listing takes (a page past the last is an empty page, not an error). */
const MAX_PAGE = 1_000_000;

/**
 * The query as an object: each parameter at most once (a repeated one is refused: which of two values was meant is
 * not guessed), the numerals of the `numeric` parameters as numbers, and the `repeatable` ones (`tag=a&tag=b`, a
 * list as OpenAPI's form style writes it) as the array of their values, however many.
 */
export function queryObject(
  params: URLSearchParams,
  numeric: readonly string[],
  repeatable: readonly string[] = [],
): Result<Record<string, string | number | string[]>, Issues> {
  const out: Record<string, string | number | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    if (repeatable.includes(name)) {
      out[name] = values;
      continue;
    }
    const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
    if (values.length > 1) return err(oneIssue("not-allowed", shown, "must be given once"));
    const value = values[0] ?? "";
    out[name] = numeric.includes(name) && NUMERAL.test(value) ? Number(value) : value;
  }
  return ok(out);
}

/**
 * `page` and `per_page` of a page-number listing (the published pagination); `message` words a refusal from the
 * bound it broke (default: `must be an integer from 1 to {max}`).
 */
export function pageFields(
  perPage: { readonly defaultPerPage: number; readonly maxPerPage: number },
  message?: (max: number) => Message,
) {
  return {
    page: z._default(int(1, MAX_PAGE, message?.(MAX_PAGE)), 1),
    per_page: z._default(int(1, perPage.maxPerPage, message?.(perPage.maxPerPage)), perPage.defaultPerPage),
  };
}

/** The parameters of `fields` that are numbers (`page`, `per_page`). */
export const PAGE_PARAMETERS = ["page", "per_page"] as const;

/**
 * A yes-or-no query parameter as the published API spells it (`?dry_run=true`): exactly `true` or `false`, any
 * other spelling refused, so a typo never reads as the default. The component `TrueOrFalse`.
 */
export const TRUE_OR_FALSE = named(oneOf(FLAGS), { id: "TrueOrFalse" });

/** A `TRUE_OR_FALSE` value as a boolean, or `undefined` when it is no such value. */
export function trueOrFalse(value: string): boolean | undefined {
  const parsed = TRUE_OR_FALSE.safeParse(value);
  return parsed.success ? parsed.data === "true" : undefined;
}
