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
    "---\n\n" +
    `# ${f.title}\n\n` +
    "## What Happened\n\n" +
    `${f.detail}\n\n` +
    "## What You Should Do\n\n" +
    `${f.what_you_should_do}\n\n` +
    "---\n\n" +
    `${f.footer}\n`
  );
}
