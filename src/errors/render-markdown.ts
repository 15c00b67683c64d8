/**
 * Markdown body of a generated error (contract §1.2, seed-spec 2.2): YAML frontmatter in the published order plus
 * the two text fields, then `# Error {code}: {title}`, `## What Happened`, `## What You Should Do`, `---`, footer.
 * `ray_id`, `timestamp` and `zone` are always double-quoted so an all-digit ray or a timestamp reads back as a string.
 */
import type { ErrorFields } from "./fields";
import { occurrenceTemplate } from "./occurrence-template";
import { doubleQuoted, yamlScalar } from "./yaml";

/** Issue 12: the same bytes as `renderMarkdownFull`, spliced from a per-code template (occurrence-template.ts). */
export const markdownBody = occurrenceTemplate(renderMarkdownFull, doubleQuoted);
export const renderMarkdown: (fields: ErrorFields) => string = markdownBody.text;

/** The body in full; the per-occurrence values are double-quoted scalars, as `occurrenceTemplate` encodes them. */
export function renderMarkdownFull(f: ErrorFields): string {
  return markdown(f, undefined, verbatim);
}

/** A link an overlay adds (issue 23): `href` an http(s) URL's serialisation (no space, `<`, `>`). */
export interface MarkdownLink {
  readonly title: string;
  readonly href: string;
}

/**
 * An error overlaid by a custom error rule (issue 23, docs/custom-errors.md "Overlay"): the same document, with
 * `links` after `what_you_should_do` in the frontmatter (a block sequence of double-quoted `title`/`href`, so any
 * text reads back exactly) and a `## More Help` list before the footer. The operator's texts are written into the
 * body with Markdown's markup characters for HTML, entities and links escaped (CommonMark §2.4 backslash escapes),
 * so a client that renders the body gets text, never the operator's markup or links of its own.
 */
export function renderMarkdownOverlaid(f: ErrorFields, links: readonly MarkdownLink[] | undefined): string {
  return markdown(f, links, escapeMarkdown);
}

function markdown(f: ErrorFields, links: readonly MarkdownLink[] | undefined, text: (s: string) => string): string {
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
    (links === undefined ? "" : frontmatterLinks(links)) +
    "---\n\n" +
    `# ${f.title}\n\n` +
    "## What Happened\n\n" +
    `${text(f.detail)}\n\n` +
    "## What You Should Do\n\n" +
    `${text(f.what_you_should_do)}\n\n` +
    (links === undefined ? "" : bodyLinks(links)) +
    "---\n\n" +
    `${f.footer}\n`
  );
}

function frontmatterLinks(links: readonly MarkdownLink[]): string {
  let out = "links:\n";
  for (const l of links) out += `  - title: ${doubleQuoted(l.title)}\n    href: ${doubleQuoted(l.href)}\n`;
  return out;
}

function bodyLinks(links: readonly MarkdownLink[]): string {
  // `<href>`: a link destination in angle brackets (CommonMark §6.3) takes any URL without `<`, `>` or a line
  // break, which a URL's serialisation never has.
  return `## More Help\n\n${links.map((l) => `- [${escapeMarkdown(l.title)}](<${l.href}>)`).join("\n")}\n\n`;
}

function verbatim(s: string): string {
  return s;
}

/** `\`, `<`, `>`, `&`, `[`, `]` and `` ` `` backslash-escaped: no HTML, entity, link, image or code span. */
function escapeMarkdown(s: string): string {
  return s.replace(/[\\<>&[\]`]/g, "\\$&");
}
