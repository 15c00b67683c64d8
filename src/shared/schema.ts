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
import { isOneOf, ISSUE_KINDS, IssueList, MAX_LISTED_ISSUES, type IssueKind, type Issues } from "./validation";

/** Any schema (the mini build's base type). */
export type Schema = z.ZodMiniType;
/** What a schema yields once parsed (defaults filled in); a `Later` schema's too. */
export type Output<S extends Schema | Later<Schema>> = z.output<Made<S>>;
/** The schema a `Later` makes (a schema is its own). */
type Made<S extends Schema | Later<Schema>> = S extends Later<infer T> ? T : S;

/**
 * An answer of the shape `S` describes: its output with every array and object read-only, so a route builds it
 * from the stores' read-only values as they are (an answer's schema is its OpenAPI component and its type).
 */
export type Answer<S extends Schema | Later<Schema>> = ReadOnlyDeep<Output<S>>;
type ReadOnlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadOnlyDeep<U>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadOnlyDeep<T[K]> }
    : T;

/**
 * A schema made on its first use: an answer's (its type, `Answer<typeof S>`, and its OpenAPI component; answers are
 * built, not parsed), a body's the document states but no route parses whole (the rulesets' `RulesetBody`), or a
 * request's (`parseWith` and `parseAt` take it as they take a schema: made on the first request that parses it).
 * Made when the document is built (`answerSchemasMade`), when another such schema made then uses it, or by its first
 * parse, never at an isolate's start: every zod object built at module evaluation is work before the isolate's first
 * answer (docs/benchmarks.md "2026-11-29 (tenth)").
 */
export type Later<S extends Schema> = () => S;

const LATER: Later<Schema>[] = [];

/**
 * `make` as a `Later`: called once, on the first use; the same schema after (a `$ref` in the document). With `meta`,
 * the schema is `named` as it is made (`later(() => …, { id })` reads as `named(…, { id })` does).
 */
export function later<S extends Schema>(make: () => S, meta?: SchemaMeta): Later<S> {
  let made: S | undefined;
  const once = (): S => (made ??= meta === undefined ? make() : named(make(), meta));
  LATER.push(once);
  return once;
}

/** The schema itself, or the one a `Later` makes. */
export const made = <S extends Schema>(schema: S | Later<S>): S => (typeof schema === "function" ? schema() : schema);

/** Makes every `later` schema, so the registry holds them all (called before the document is emitted). */
export function answerSchemasMade(): void {
  for (const make of LATER) make();
}

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

/** A yes-or-no query parameter's two spellings (`?dry_run=true`, `?effective=false`): any other is refused. */
export const FLAGS = ["true", "false"] as const;

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
 * A field that must not be given (JSON Schema `not: {}`): given, whatever its value, it is refused with `message`,
 * kind `not-allowed` (a field another one excludes: `content` beside `overlay`).
 */
export function absent(message: string) {
  return z.optional(z.never({ error: message }));
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

/**
 * The kind of refusal an issue is (the `IssueKind` every validator of the service reports). A value not given is
 * `missing` whatever the schema expected; a refinement names its own kind in `params.kind` (else `invalid`).
 */
function kindOf(issue: z.core.$ZodIssue): IssueKind {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "missing";
      return issue.expected === "never" ? "not-allowed" : "wrong-type";
    case "too_small":
    case "too_big":
      return "out-of-range";
    case "invalid_value":
      return issue.input === undefined ? "missing" : "not-allowed";
    case "unrecognized_keys":
      return "unknown-field";
    case "custom": {
      const kind: unknown = issue.params?.kind;
      return isOneOf(ISSUE_KINDS, kind) ? kind : "invalid";
    }
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
  schema: S | Later<S>,
  value: unknown,
  options: ParseOptions = {},
): Result<z.output<S>, Issues<IssueKind>> {
  const parsed = made(schema).safeParse(value, { reportInput: true, error: defaultMessage });
  if (parsed.success) return ok(parsed.data);
  const issues = new IssueList(options.cap ?? MAX_LISTED_ISSUES);
  const ordered = refusedKeysFirst(refusalsOf(parsed.error.issues), value, options.unknownKeys === "last");
  for (const refusal of ordered) issues.add(refusal.kind, pathOf(refusal.path, options.root), refusal.message);
  return err(issues.issues);
}

/** One refusal before it is listed; a refused key (unknown, or an `absent` field given) names its object. */
interface Refusal {
  readonly kind: IssueKind;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** Its place in zod's order (field order). */
  readonly at: number;
  /** For a refused key: the object's path and the key. */
  readonly key?: { readonly of: readonly PropertyKey[]; readonly name: string };
}

/** zod's issues as refusals, an unknown-keys issue as one per key (a key over 40 characters cut in the path). */
function refusalsOf(issues: readonly z.core.$ZodIssue[]): Refusal[] {
  const out: Refusal[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const name of issue.keys) {
        const key = { of: issue.path, name };
        out.push({
          kind: "unknown-field",
          path: [...issue.path, keyName(name)],
          message: issue.message,
          at: out.length,
          key,
        });
      }
      continue;
    }
    const name = issue.path.at(-1);
    const given = issue.code === "invalid_type" && issue.expected === "never" && typeof name === "string";
    const key = given ? { of: issue.path.slice(0, -1), name } : undefined;
    out.push({
      kind: kindOf(issue),
      path: issue.path,
      message: issue.message,
      at: out.length,
      ...(key ? { key } : {}),
    });
  }
  return out;
}

/**
 * The refusals with each object's refused keys (unknown ones, and `absent` fields given) listed together, in the
 * order the body gives those keys, before the first other refusal inside that object (the root's left where they
 * stood when `rootLast`); an object with nothing else wrong keeps them where they stood (field order).
 */
function refusedKeysFirst(refusals: readonly Refusal[], value: unknown, rootLast: boolean): Refusal[] {
  const samePath = (a: readonly PropertyKey[], b: readonly PropertyKey[]) =>
    a.length === b.length && a.every((segment, i) => b[i] === segment);
  const moved = (refusal: Refusal) => refusal.key !== undefined && !(rootLast && refusal.key.of.length === 0);
  let out = refusals.filter((refusal) => !moved(refusal));
  const placed = new Set<Refusal>();
  for (const refusal of refusals) {
    if (!moved(refusal) || placed.has(refusal) || refusal.key === undefined) continue;
    const object = refusal.key.of;
    const group = refusals.filter((other) => moved(other) && other.key !== undefined && samePath(other.key.of, object));
    for (const member of group) placed.add(member);
    // zod lists unknown keys in the body's order already; `absent` fields come in field order, so the group is sorted.
    if (group.some((member) => member.kind !== "unknown-field")) {
      const order = new Map(keysAt(value, object).map((key, i) => [key, i]));
      const rank = (member: Refusal) => order.get(member.key?.name ?? "") ?? order.size;
      group.sort((a, b) => rank(a) - rank(b));
    }
    const inside = out.findIndex((other) => object.every((segment, i) => other.path[i] === segment));
    const next = out.findIndex((other) => other.at > refusal.at);
    const where = inside !== -1 ? inside : next === -1 ? out.length : next;
    // Not `splice(…, ...group)`: a group may hold every key of a body of 50,000 unknown keys (too many arguments).
    out = [...out.slice(0, where), ...group, ...out.slice(where)];
  }
  return out;
}

/** The keys of the object at `path` inside `value`, in its order (none when there is no object there). */
function keysAt(value: unknown, path: readonly PropertyKey[]): string[] {
  let node = value;
  for (const segment of path) {
    if (typeof node !== "object" || node === null) return [];
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return typeof node === "object" && node !== null ? Object.keys(node) : [];
}

/**
 * Parses a value found inside a body whose own fields are still read by hand (a ruleset's rules): the output, or
 * `undefined` with each issue reported through `at` under `path` (`rules[3].ratelimit` + `.period`; `""`: the
 * body's own fields, `name`), in the
 * schema's order. The listing is capped at `cap`, which must not be below the caller's own cap: issues past it are
 * still reported (so the caller counts them), when the caller's list is full already.
 */
export function parseAt<S extends Schema>(
  schema: S | Later<S>,
  value: unknown,
  path: string,
  at: (kind: IssueKind, path: string, message: string) => void,
  cap = MAX_LISTED_ISSUES,
): z.output<S> | undefined {
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
