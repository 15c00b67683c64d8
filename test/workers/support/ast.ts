/** The Rules language's syntax trees as tests compare them (src/rules/parser.ts). */

/** A tree without its source positions (`span`): two spellings of one expression parse to equal trees. */
export function withoutSpans(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSpans);
  if (node !== null && typeof node === "object") {
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k]) => k !== "span")
        .map(([k, v]) => [k, withoutSpans(v)]),
    );
  }
  return node;
}
