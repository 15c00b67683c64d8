/** Reading a Markdown body's block structure in tests (no Markdown parser is a dependency). */

/**
 * The block structure of a Markdown body as CommonMark would read it, for the blocks that shape the document:
 * ATX headings (§4.2), thematic breaks (§4.1), setext underlines (§4.3) and fence openers (§4.5). No Markdown
 * parser is a dependency, so this reads each line past its indentation and any container markers (list items
 * `- `, `1. `, block quotes `> `), checking at every step, as a container's content may itself start a block.
 * It errs towards finding blocks (a fence's content is not skipped, any line after text may be an underline).
 */
export function blockStructure(body: string): {
  headings: string[];
  breaks: number;
  fences: number;
  underlines: number;
} {
  const found = { headings: [] as string[], breaks: 0, fences: 0, underlines: 0 };
  let previousText = false;
  for (const line of body.split("\n")) {
    let rest = line;
    let kind: "heading" | "break" | "underline" | "fence" | null = null;
    for (;;) {
      const trimmed = rest.replace(/^ +/, "");
      if (/^#{1,6}(?: |$)/.test(trimmed)) kind = "heading";
      else if (/^([-*_])(?: *\1){2,} *$/.test(trimmed)) kind = "break";
      else if (previousText && /^(?:=+|-+) *$/.test(trimmed)) kind = "underline";
      else if (/^(?:`{3,}|~{3,})/.test(trimmed)) kind = "fence";
      // A list marker takes a space after it, or ends the line (CommonMark §5.2); a block quote marker need not (§5.1).
      const container = /^(?:(?:[-+*]|[0-9]{1,9}[.)])(?: +|$)|> ?)/.exec(trimmed);
      if (kind !== null || container === null || container[0] === "") break;
      rest = trimmed.slice(container[0].length);
    }
    if (kind === "heading") found.headings.push(line.replace(/^[ \-+*>0-9.)]*/, ""));
    if (kind === "break") found.breaks++;
    if (kind === "underline") found.underlines++;
    if (kind === "fence") found.fences++;
    previousText = kind === null && line.trim() !== "";
  }
  return found;
}
