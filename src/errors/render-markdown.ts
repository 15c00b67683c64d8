/**
 * Markdown body of a generated error (docs/errors.md): YAML frontmatter in the published order plus
 * the two text fields and the extension member `request_reached_origin`, then `# Error {code}: {title}`, `## What Happened`, `## What You Should Do`, `---`, footer.
 * `ray_id`, `timestamp` and `zone` are always double-quoted so an all-digit ray or a timestamp reads back as a string.
 */
import type { ErrorFields, ErrorLink } from "./fields";
import type { Language } from "./language";
import { EN_WORDS } from "./languages/en";
import type { Words } from "./languages/words";
import { wordsOf } from "./localize";
import { occurrenceTemplate, type OccurrenceRenderer } from "./occurrence-template";
import { doubleQuoted, yamlScalar } from "./yaml";

/** The same bytes as `renderMarkdownFull`, spliced from a per-code template (occurrence-template.ts). */
export const markdownBody = occurrenceTemplate((f) => renderMarkdownFull(f), doubleQuoted);
export const renderMarkdown: (fields: ErrorFields) => string = markdownBody.text;

/** The body's renderer in each language (docs/languages.md), made on first use: its templates are its own. */
const markdownBodies = new Map<Language, OccurrenceRenderer>([["en", markdownBody]]);

/** `markdownBody` in `language`: the section headings in its words. */
export function markdownBodyIn(language: Language): OccurrenceRenderer {
  let body = markdownBodies.get(language);
  if (body === undefined) {
    const words = wordsOf(language);
    body = occurrenceTemplate((f) => renderMarkdownFull(f, words), doubleQuoted);
    markdownBodies.set(language, body);
  }
  return body;
}

/** The body in full; the per-occurrence values are double-quoted scalars, as `occurrenceTemplate` encodes them. */
export function renderMarkdownFull(f: ErrorFields, words: Words = EN_WORDS): string {
  return markdown(f, { links: undefined, text: verbatim, words });
}

/**
 * An error overlaid by a custom error rule (docs/custom-errors.md "Overlay"): the same document, with
 * `links` after `what_you_should_do` in the frontmatter (a block sequence of double-quoted `title`/`href`, so any
 * text reads back exactly) and a `## More Help` list before the footer. The operator's texts are written into the
 * body with Markdown's markup characters for HTML, entities and links escaped (CommonMark §2.4 backslash escapes),
 * so a client that renders the body gets text, never the operator's markup or links of its own; and no line of
 * theirs opens a block that would reshape the document (`operatorText`): no heading, thematic break or fence, so
 * the sections and the footer are the service's alone.
 */
export function renderMarkdownOverlaid(
  f: ErrorFields,
  links: readonly ErrorLink[] | undefined,
  words: Words = EN_WORDS,
): string {
  return markdown(f, { links, text: operatorText, words });
}

/** How the body is written: an overlay's links, how its texts are escaped, the section headings' words. */
interface MarkdownOptions {
  readonly links: readonly ErrorLink[] | undefined;
  readonly text: (s: string) => string;
  readonly words: Words;
}

function markdown(f: ErrorFields, { links, text, words }: MarkdownOptions): string {
  const retry = f.retry_after === undefined ? "" : `retry_after: ${yamlScalar(f.retry_after)}\n`;
  return (
    "---\n" +
    `error_code: ${yamlScalar(f.error_code)}\n` +
    `error_name: ${yamlScalar(f.error_name)}\n` +
    `error_category: ${yamlScalar(f.error_category)}\n` +
    `status: ${yamlScalar(f.status)}\n` +
    `ray_id: ${doubleQuoted(f.ray_id)}\n` +
    `timestamp: ${doubleQuoted(f.timestamp)}\n` +
    `zone: ${doubleQuoted(f.zone)}\n` +
    `edge_error: ${yamlScalar(f.edge_error)}\n` +
    `retryable: ${yamlScalar(f.retryable)}\n` +
    retry +
    `owner_action_required: ${yamlScalar(f.owner_action_required)}\n` +
    `detail: ${yamlScalar(f.detail)}\n` +
    `what_you_should_do: ${yamlScalar(f.what_you_should_do)}\n` +
    `request_reached_origin: ${f.request_reached_origin === null ? "null" : yamlScalar(f.request_reached_origin)}\n` +
    (f.trace_id === undefined ? "" : `trace_id: ${doubleQuoted(f.trace_id)}\n`) +
    (links === undefined ? "" : frontmatterLinks(links)) +
    "---\n\n" +
    `# ${f.title}\n\n` +
    `## ${words.mdWhatHappened}\n\n` +
    `${text(f.detail)}\n\n` +
    `## ${words.mdWhatYouShouldDo}\n\n` +
    `${text(f.what_you_should_do)}\n\n` +
    (links === undefined ? "" : bodyLinks(links, words)) +
    "---\n\n" +
    `${f.footer}\n`
  );
}

function frontmatterLinks(links: readonly ErrorLink[]): string {
  let out = "links:\n";
  for (const l of links) out += `  - title: ${doubleQuoted(l.title)}\n    href: ${doubleQuoted(l.href)}\n`;
  return out;
}

function bodyLinks(links: readonly ErrorLink[], words: Words): string {
  // `<href>`: a link destination in angle brackets (CommonMark §6.3) takes any URL without `<`, `>` or a line
  // break, which a URL's serialisation never has.
  return `## ${words.mdMoreHelp}\n\n${links.map((l) => `- [${escapeMarkdown(l.title)}](<${l.href}>)`).join("\n")}\n\n`;
}

function verbatim(s: string): string {
  return s;
}

/** `\`, `<`, `>`, `&`, `[`, `]` and `` ` `` backslash-escaped: no HTML, entity, link, image or code span. */
function escapeMarkdown(s: string): string {
  return s.replace(/[\\<>&[\]`]/g, "\\$&");
}

/**
 * An overlay's text (`detail`, `what_you_should_do`) as body Markdown: `escapeMarkdown`, then each line kept from
 * opening a block that would change the document's structure (docs/custom-errors.md "Overlay"). Paragraphs, the
 * bulleted and numbered lists and the emphasis the overlay documents render as written; what is neutralised is
 * what could forge the service's own sections or footer, by a backslash before its first character (CommonMark
 * §2.4: the character then reads as itself):
 *   - an ATX heading, `#` (§4.2);
 *   - a thematic break, three or more `-`, `*` or `_` with spaces (§4.1): the footer's own separator;
 *   - a setext heading underline, a run of `=` or `-` (§4.3), which would turn the line above into a heading;
 *   - a fenced code block, ```` ``` ```` (already escaped) or `~~~` (§4.5), which left open runs to the end of the
 *     document and swallows the sections after it.
 * HTML blocks (§4.6), block quotes (§5.1) and link reference definitions (§4.7) cannot start: `<`, `>` and `[` are
 * escaped everywhere. A line is read past its indentation and list markers (`- `, `* `, `+ `, `1. `, `1) `), so
 * `- # x` is a list item of text, not a heading in a list; tabs never reach here (overlay.ts refuses them).
 */
function operatorText(s: string): string {
  const escaped = escapeMarkdown(s);
  return escaped.includes("\n") ? escaped.split("\n").map(blockSafeLine).join("\n") : blockSafeLine(escaped);
}

/** A run of `=`, or of `-`: a setext underline (also a thematic break from three `-` on). */
const UNDERLINE = /^(?:=+|-+) *$/;
/** A thematic break: three or more of one of `-`, `*`, `_`, spaces allowed between (`- - -`, `* * *`). */
const BREAK = /^([-*_])(?: *\1){2,} *$/;
/** A list item's marker with the space after it, when text follows (an empty item is matched as UNDERLINE first). */
const LIST_MARKER = /^(?:[-+*]|[0-9]{1,9}[.)]) +(?=[^ ])/;

function blockSafeLine(line: string): string {
  let at = 0;
  for (;;) {
    while (line.charCodeAt(at) === 0x20) at++;
    const rest = line.slice(at);
    if (rest.startsWith("#") || rest.startsWith("~~~") || UNDERLINE.test(rest) || BREAK.test(rest)) {
      return `${line.slice(0, at)}\\${rest}`;
    }
    const marker = LIST_MARKER.exec(rest);
    if (marker === null) return line;
    at += marker[0].length;
  }
}
