/**
 * A scheme: the fields an expression may use and their types, supplied by the caller (wirefilter's `Scheme`).
 * Each field gets an index at definition time, so compiled rules read fields by index and never look up names
 * while evaluating (docs/rules-language.md). Aliases share their target's index (docs/rules-language.md: `cf.response.*`
 * for `edge.response.*`).
 */
import type { Type } from "./types";

export interface FieldDecl {
  /** The canonical name (an alias resolves to its target's declaration). */
  readonly name: string;
  readonly type: Type;
  readonly index: number;
}

export interface Scheme {
  readonly fields: readonly FieldDecl[];
  field(name: string): FieldDecl | undefined;
}

export function defineScheme(
  fields: Readonly<Record<string, Type>>,
  aliases: Readonly<Record<string, string>> = {},
): Scheme {
  const byName = new Map<string, FieldDecl>();
  const list: FieldDecl[] = [];
  for (const [name, type] of Object.entries(fields)) {
    const decl: FieldDecl = { name, type, index: list.length };
    list.push(decl);
    byName.set(name, decl);
  }
  for (const [alias, target] of Object.entries(aliases)) {
    const decl = byName.get(target);
    if (!decl) throw new Error(`scheme alias ${alias} points at unknown field ${target}`);
    byName.set(alias, decl);
  }
  return { fields: list, field: (name) => byName.get(name) };
}
