/**
 * The static types of the Rules language (docs/rules-language.md; wirefilter `Type`): String is wirefilter's
 * `Bytes`, plus Int, Bool, IP and the two containers. Runtime values live in `values.ts`.
 */
export type Type =
  | { readonly kind: "Bytes" }
  | { readonly kind: "Int" }
  | { readonly kind: "Bool" }
  | { readonly kind: "Ip" }
  | { readonly kind: "Array"; readonly element: Type }
  | { readonly kind: "Map"; readonly value: Type };

export const BYTES: Type = { kind: "Bytes" };
export const INT: Type = { kind: "Int" };
export const BOOL: Type = { kind: "Bool" };
export const IP: Type = { kind: "Ip" };
export const arrayOf = (element: Type): Type => ({ kind: "Array", element });
export const mapOf = (value: Type): Type => ({ kind: "Map", value });

/** `Array<Map<Bytes>>`, the notation wirefilter's messages and the test vectors use. */
export function typeName(type: Type): string {
  switch (type.kind) {
    case "Array":
      return `Array<${typeName(type.element)}>`;
    case "Map":
      return `Map<${typeName(type.value)}>`;
    default:
      return type.kind;
  }
}

export function sameType(a: Type, b: Type): boolean {
  if (a.kind === "Array" && b.kind === "Array") return sameType(a.element, b.element);
  if (a.kind === "Map" && b.kind === "Map") return sameType(a.value, b.value);
  return a.kind === b.kind;
}

/** True for `Array<Bool>`, the type `any()`/`all()` take and the type of a comparison over `[*]`. */
export const isBoolArray = (type: Type): boolean => type.kind === "Array" && type.element.kind === "Bool";

/**
 * Parses a type name (`Bytes`, `String`, `Int`, `Bool`, `Ip`, `Array<T>`, `Map<T>`) so schemes can be
 * written as data, e.g. the conformance vectors' `fields`.
 */
export function parseTypeName(text: string): Type | undefined {
  const name = text.trim();
  switch (name) {
    case "Bytes":
    case "String":
      return BYTES;
    case "Int":
    case "Integer":
      return INT;
    case "Bool":
    case "Boolean":
      return BOOL;
    case "Ip":
    case "IP":
      return IP;
  }
  const container = /^(Array|Map)<(.+)>$/.exec(name);
  if (!container) return undefined;
  const inner = parseTypeName(container[2] ?? "");
  if (!inner) return undefined;
  return container[1] === "Array" ? arrayOf(inner) : mapOf(inner);
}
