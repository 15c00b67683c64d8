/**
 * Turns a conformance vector's `fields` (docs/rules-language.md) into a scheme and an evaluation context.
 */
import {
  contextFromValues,
  defineScheme,
  parseIp,
  parseTypeName,
  toByteString,
  type Scheme,
  type Type,
  type Value,
} from "../../../src/rules";
import type { EvaluationContext } from "../../../src/rules/context";

export interface VectorField {
  readonly type: string;
  readonly value: unknown;
}

export interface Vector {
  readonly expr: string;
  readonly fields: Readonly<Record<string, VectorField>>;
  readonly expect: boolean | "parse_error" | "type_error";
  readonly source: string;
  readonly note?: string;
  readonly error?: string;
  readonly settings?: { readonly max_nesting_depth?: number; readonly wildcard_star_limit?: number };
  readonly amended?: string;
}

export function vectorScheme(fields: Vector["fields"]): { scheme: Scheme; context: EvaluationContext } {
  const types: Record<string, Type> = {};
  const values: Record<string, Value | undefined> = {};
  for (const [name, field] of Object.entries(fields)) {
    const type = parseTypeName(field.type);
    if (!type) throw new Error(`vector field ${name}: unknown type ${field.type}`);
    types[name] = type;
    values[name] = field.value === null ? undefined : toValue(type, field.value);
  }
  const scheme = defineScheme(types);
  return { scheme, context: contextFromValues(scheme, values) };
}

function toValue(type: Type, raw: unknown): Value {
  switch (type.kind) {
    case "Bytes":
      if (typeof raw === "string") return toByteString(raw);
      if (raw !== null && typeof raw === "object" && "bytes" in raw && Array.isArray(raw.bytes)) {
        return String.fromCharCode(...(raw.bytes as number[]));
      }
      break;
    case "Int":
      if (typeof raw === "number") return raw;
      break;
    case "Bool":
      if (typeof raw === "boolean") return raw;
      break;
    case "Ip": {
      const ip = typeof raw === "string" ? parseIp(raw) : undefined;
      if (ip !== undefined) return ip;
      break;
    }
    case "Array":
      if (Array.isArray(raw)) return raw.map((x: unknown) => toValue(type.element, x));
      break;
    case "Map":
      if (raw !== null && typeof raw === "object") {
        return new Map(Object.entries(raw).map(([k, v]) => [toByteString(k), toValue(type.value, v)]));
      }
  }
  throw new Error(`vector value ${JSON.stringify(raw)} is not a ${type.kind}`);
}
