/**
 * The one validation vocabulary of the service, what a request schema's parse (src/shared/schema.ts) and every
 * check after it report in:
 *
 * - one field-issue shape, `FieldIssue {kind, path, message}`, whatever the validator;
 * - one capped listing, `IssueList`: it stops keeping issues after its cap and counts the rest, so a 1 MiB body of
 *   50,000 unknown keys answers a short list ending "and N more" (bounded work and bounded answers:
 *   docs/configuration.md "Zones").
 *
 * Pure, no bindings. The API edge renders issues in one place (src/api/kit/zone-section.ts); the messages stay the
 * validators' own, since clients and tests read them.
 */
/** What is wrong with a field, in kebab-case like every failure kind of the service. */
export const ISSUE_KINDS = [
  /** The value is not of the type the field takes (object, array, string, number, boolean). */
  "wrong-type",
  /** A key the shape does not have. */
  "unknown-field",
  /** A required field is absent. */
  "missing",
  /** A number, length or count outside its bounds. */
  "out-of-range",
  /** Not one of the allowed values. */
  "not-allowed",
  /** The right type and size, but not a valid value (a URL, an expression, an address…). */
  "invalid",
  /** Used twice where it must be unique. */
  "duplicate",
] as const;
export type IssueKind = (typeof ISSUE_KINDS)[number];

/** One refused field. `path` names it as the client wrote it (`origin`, `rules[3].id`); `""` is the whole body. */
export interface FieldIssue<K extends string = IssueKind> {
  readonly kind: K;
  readonly path: string;
  readonly message: string;
}

/** A capped list of issues: the first `cap`, and how many more were found but not kept. */
export interface Issues<K extends string = string> {
  readonly listed: readonly FieldIssue<K>[];
  readonly more: number;
}

/** Issues listed by default before the rest are only counted (a body of 50,000 unknown keys). */
export const MAX_LISTED_ISSUES = 20;

/**
 * Keeps the first `cap` issues added and counts the rest (never more than `cap` are held): the one capped listing
 * every validator reports through, so no body (140,000 unknown keys, 10,000 bad rules) makes an answer longer
 * than its cap plus one line counting the rest.
 */
export class IssueList<K extends string = IssueKind> {
  private readonly kept: FieldIssue<K>[] = [];
  private dropped = 0;

  constructor(private readonly cap: number = MAX_LISTED_ISSUES) {}

  add(kind: K, path: string, message: string): void {
    if (this.kept.length < this.cap) this.kept.push({ kind, path, message });
    else this.dropped++;
  }

  /** Every issue added so far, kept or not. */
  get count(): number {
    return this.kept.length + this.dropped;
  }

  get issues(): Issues<K> {
    return { listed: [...this.kept], more: this.dropped };
  }
}

/** A single issue as a capped list of one. */
export function oneIssue<K extends string>(kind: K, path: string, message: string): Issues<K> {
  return { listed: [{ kind, path, message }], more: 0 };
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is one of `values` (narrows without a cast). */
export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === "string" && (values as readonly string[]).includes(value);
}
