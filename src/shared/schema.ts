/**
 * Request schemas (docs/architecture.md "Request schemas"): one zod schema per request body, query and path is the
 * validator, the TypeScript type (`Output<typeof S>`) and the OpenAPI fragment (src/api/kit/openapi.ts emits it
 * with `z.toJSONSchema`). zod's `mini` build (https://zod.dev/packages/mini): the same schemas and JSON Schema
 * emitter as the full build, without the method chains, a fraction of the bundle bytes.
 *
 * What the service adds to zod is small and lives here:
 *
 * - builders whose refusal messages are the service's own wording (`int`, `num`, `oneOf`, `text`, `fields`), so a
 *   bound is written once and its message names it (`must be an integer from 1024 to 131072`);
 * - `parseWith`: a parse whose failure is the one request-validation failure of the service, the capped
 *   `Issues` of src/shared/validation.ts: one `{kind, path, message}` per refused field (`rules[3].id`), unknown
 *   keys one issue each (`account.name is not a field of account (only id)`), the listing capped;
 * - `API_SCHEMAS`: the registry naming the schemas the OpenAPI document shows as components.
 *
 * Semantic checks (expressions, CIDRs, origin URLs, plan limits) stay hand-written: as `z.refine` checks inside a
 * schema when their verdict is per field, or after the parse when they need more than the body.
 */
import * as z from "zod/mini";
import { err, ok, type Result } from "./result";
import { IssueList, MAX_LISTED_ISSUES, type IssueKind, type Issues } from "./validation";

/** Any schema (the mini build's base type). */
export type Schema = z.ZodMiniType;
/** What a schema yields once parsed (defaults filled in). */
export type Output<S extends Schema> = z.output<S>;

/**
 * An answer of the shape `S` describes: its output with every array and object read-only, so a route builds it
 * from the stores' read-only values as they are (an answer's schema is its OpenAPI component and its type).
 */
export type Answer<S extends Schema> = ReadOnlyDeep<Output<S>>;
type ReadOnlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadOnlyDeep<U>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadOnlyDeep<T[K]> }
    : T;

/** What the OpenAPI document says of a named schema beside what the schema itself says. */
export interface SchemaMeta {
  /** The component name: `#/components/schemas/{id}`. */
  readonly id: string;
  readonly description?: string;
  readonly example?: unknown;
}

/**
 * The schemas the OpenAPI document shows as named components (`#/components/schemas/{id}`): zod's global
 * registry, where `z.describe` also writes; a schema that uses a named one is emitted with a `$ref` to it.
 */
export const API_SCHEMAS = z.globalRegistry;

/**
 * Registers `schema` as the component `meta.id` of the OpenAPI document and returns it. Metadata the schema
 * already carries (a `z.meta` check stating a bound zod cannot emit itself) is kept beside `meta`.
 */
export function named<S extends Schema>(schema: S, meta: SchemaMeta): S {
  API_SCHEMAS.add(schema, { ...API_SCHEMAS.get(schema), ...meta });
  return schema;
}

/**
 * A description for the document (the field's meaning; bounds and enums come from the schema itself), and a
 * `default` to show when the default is not the schema's own (a setting's value when none was written).
 *
 * A copy of `schema` with the metadata in the registry, as `schema.check(z.describe(…))` would make, without the
 * check object: every schema is built when its module is evaluated, at an isolate's start (docs/benchmarks.md
 * "2026-11-29 (ninth)"), and a check object is one more zod object to construct there, and one more step of every
 * parse. The copy keeps its original as `_zod.parent`, so the registry and the JSON Schema emitter read the
 * original's metadata under the copy's, as for a `.check()` copy.
 */
export function described<S extends Schema>(
  schema: S,
  meta: string | { readonly description: string; readonly default?: string | number | boolean },
): S {
  const copy = schema.clone();
  API_SCHEMAS.add(copy, typeof meta === "string" ? { description: meta } : { ...meta });
  return copy;
}

/**
 * A refusal's wording: fixed, or made from the refused value (`must be …; got 61`, where a client is helped by
 * seeing what it sent).
 */
export type Message = string | ((issue: { readonly input?: unknown }) => string);

/**
 * An instant as an answer writes it (`Date.prototype.toISOString`): a string the document marks `format:
 * date-time` (a format, not a check: answers are built, not parsed).
 */
export function dateTime() {
  // Registered as it is made (no `.check(z.meta(…))` copy): one zod object at start-up instead of three.
  const schema = z.string();
  API_SCHEMAS.add(schema, { format: "date-time" });
  return schema;
}

/** An integer from `min` to `max`; one message for every refusal, naming both bounds. */
export function int(min: number, max: number, message: Message = `must be an integer from ${min} to ${max}`) {
  return z.int({ error: message }).check(z.minimum(min, { error: message }), z.maximum(max, { error: message }));
}

/** A finite number from `min` to `max` (fractions allowed). */
export function num(min: number, max: number, message = `must be a number from ${min} to ${max}`) {
  return z.number({ error: message }).check(z.minimum(min, { error: message }), z.maximum(max, { error: message }));
}

/** One of `values` (the enum is the document's `enum`). */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  message: Message = `must be one of ${values.join(", ")}`,
) {
  return z.enum(values, { error: message });
}

/** Bounds of a string: UTF-16 code units, and a pattern the whole string must match. */
export interface TextBounds {
  readonly min?: number;
  readonly max?: number;
  readonly pattern?: RegExp;
}

/** A string within `bounds`; `message` is every refusal's. */
export function text(bounds: TextBounds, message: string) {
  const checks: z.core.$ZodCheck<string>[] = [];
  if (bounds.min !== undefined) checks.push(z.minLength(bounds.min, { error: message }));
  if (bounds.max !== undefined) checks.push(z.maxLength(bounds.max, { error: message }));
  if (bounds.pattern !== undefined) checks.push(z.regex(bounds.pattern, { error: message }));
  const base = z.string({ error: message });
  return checks.length === 0 ? base : base.check(...checks);
}

/**
 * An object with exactly these fields: any other key is refused, one issue per key, with `unknown` as its message
 * (`is not a zone setting`); a value that is no object is refused with `wrongType`.
 */
export function fields<S extends z.core.$ZodLooseShape>(
  shape: S,
  unknown: string,
  wrongType = "must be a JSON object",
) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? unknown : issue.code === "invalid_type" ? wrongType : undefined,
  });
}

/**
 * A check of an object whose fields `keys` are alternatives: exactly one of them is given (not `undefined`), else one
 * refusal, `message`, at the first key's path. JSON Schema could say it with `oneOf` of `required` lists, but the
 * refusal would then name no field; the document states it in the object's description instead.
 */
export function exactlyOne<T extends object>(
  keys: readonly [keyof T & string, ...(keyof T & string)[]],
  message: string,
) {
  return z.superRefine<T>((value, context) => {
    const given = keys.filter((key) => value[key] !== undefined).length;
    if (given !== 1) context.issues.push({ code: "custom", message, path: [keys[0]], input: value[keys[0]] });
  });
}

/**
 * The same fields each optional and nullable (a merge patch's body: a field given replaces the stored one, `null`
 * resets it), defaults dropped: derived, so a field added to the full shape is patchable at once.
 */
export function patchOf<S extends z.core.$ZodLooseShape>(shape: S, unknown: string) {
  const patch: Record<string, Schema> = {};
  for (const [key, schema] of Object.entries<z.core.$ZodType>(shape))
    patch[key] = z.optional(z.nullable(withoutDefault(schema)));
  return fields(patch, unknown);
}

function withoutDefault(schema: z.core.$ZodType): Schema {
  let inner: z.core.$ZodType = schema;
  for (;;) {
    const def = inner._zod.def;
    const wrapper = def.type === "default" || def.type === "optional" || def.type === "nullable";
    if (wrapper && "innerType" in def) inner = def.innerType as z.core.$ZodType;
    else return inner as Schema;
  }
}

/** The default wording of an issue no schema worded (the service's: `must be …`). */
function defaultMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "object"
        ? "must be a JSON object"
        : issue.expected === "boolean"
          ? "must be true or false"
          : issue.expected === "int"
            ? "must be an integer"
            : `must be ${issue.expected === "array" ? "an" : "a"} ${issue.expected}`;
    case "too_small":
    case "too_big": {
      const which = issue.code === "too_small" ? "at least" : "at most";
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const unit = issue.origin === "array" ? " items" : issue.origin === "string" ? " characters" : "";
      return `must be ${which} ${String(bound)}${unit}`;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "regex" && "pattern" in issue
        ? `must match ${String(issue.pattern)}`
        : `must be a valid ${issue.format}`;
    case "unrecognized_keys":
      return "is not a known field";
    default:
      return "is not valid";
  }
}

/** The kind of refusal an issue is (the `IssueKind` every validator of the service reports). */
function kindOf(issue: z.core.$ZodIssue): IssueKind {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "missing" : "wrong-type";
    case "too_small":
    case "too_big":
      return "out-of-range";
    case "invalid_value":
      return "not-allowed";
    case "unrecognized_keys":
      return "unknown-field";
    default:
      return "invalid";
  }
}

/**
 * A path as the client wrote it: `rules[3].action_parameters.status_code`; `[]` is `root`. A key over 64 characters
 * (a record's key: a header name) is cut there, so a refusal never echoes a body-sized key.
 */
export function pathOf(path: readonly PropertyKey[], root = ""): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      out += out === "" ? shown : `.${shown}`;
    }
  }
  return out === "" ? root : out;
}

/** An unknown key as named in a refusal: a key longer than 40 characters cut there (a body may be all key). */
const keyName = (key: string): string => (key.length > 40 ? `${key.slice(0, 40)}…` : key);

export interface ParseOptions {
  /** How the body as a whole is named in an issue's path (`body`; default `""`, the message alone). */
  readonly root?: string;
  /** Issues listed before the rest are only counted (default `MAX_LISTED_ISSUES`). */
  readonly cap?: number;
  /**
   * Where the body's own unknown keys are listed: `first` (default: before its other issues) or `last` (after
   * them: a body of one or two fields names what is wrong with those before counting stray keys). A nested
   * object's unknown keys always come first among its issues.
   */
  readonly unknownKeys?: "first" | "last";
}

/**
 * Parses `value` with `schema`: its output, or the capped issues (the one request-validation failure), in the
 * schema's field order, an object's unknown keys before its other issues (the first thing wrong with a body of
 * 50,000 unknown keys is that).
 */
export function parseWith<S extends Schema>(
  schema: S,
  value: unknown,
  options: ParseOptions = {},
): Result<Output<S>, Issues<IssueKind>> {
  const parsed = schema.safeParse(value, { reportInput: true, error: defaultMessage });
  if (parsed.success) return ok(parsed.data);
  const issues = new IssueList(options.cap ?? MAX_LISTED_ISSUES);
  const ordered = unknownKeysFirst(parsed.error.issues, options.unknownKeys === "last");
  for (const issue of ordered) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) issues.add("unknown-field", pathOf([...issue.path, keyName(key)]), issue.message);
    } else issues.add(kindOf(issue), pathOf(issue.path, options.root), issue.message);
  }
  return err(issues.issues);
}

/**
 * The issues with each object's unknown keys moved before the first other issue inside that object (the root's
 * left last when `rootLast`).
 */
function unknownKeysFirst(issues: readonly z.core.$ZodIssue[], rootLast: boolean): z.core.$ZodIssue[] {
  const atRoot = (issue: z.core.$ZodIssue) => rootLast && issue.path.length === 0;
  const out: z.core.$ZodIssue[] = issues.filter((issue) => issue.code !== "unrecognized_keys" || atRoot(issue));
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys" || atRoot(issue)) continue;
    const inside = out.findIndex((other) => issue.path.every((segment, i) => other.path[i] === segment));
    // Nothing else wrong inside that object: it stays where it stood among the issues (field order).
    const after = issues.indexOf(issue);
    const next = out.findIndex((other) => issues.indexOf(other) > after);
    out.splice(inside !== -1 ? inside : next === -1 ? out.length : next, 0, issue);
  }
  return out;
}

/**
 * Parses a value found inside a body whose own fields are still read by hand (a ruleset's rules): the output, or
 * `undefined` with each issue reported through `at` under `path` (`rules[3].ratelimit` + `.period`; `""`: the
 * body's own fields, `name`), in the
 * schema's order. The listing is capped at `cap`, which must not be below the caller's own cap: issues past it are
 * still reported (so the caller counts them), when the caller's list is full already.
 */
export function parseAt<S extends Schema>(
  schema: S,
  value: unknown,
  path: string,
  at: (kind: IssueKind, path: string, message: string) => void,
  cap = MAX_LISTED_ISSUES,
): Output<S> | undefined {
  const parsed = parseWith(schema, value, { cap });
  if (parsed.ok) return parsed.value;
  const { listed, more } = parsed.error;
  for (const issue of listed) {
    const inside = path === "" || issue.path === "" || issue.path.startsWith("[") ? issue.path : `.${issue.path}`;
    at(issue.kind, `${path}${inside}`, issue.message);
  }
  for (let i = 0; i < more; i++) at("invalid", path, "is not valid");
  return undefined;
}
