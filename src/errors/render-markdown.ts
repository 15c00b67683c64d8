/**
 * Markdown body of a generated error (contract §1.2, seed-spec 2.2): YAML frontmatter in the published order plus
 * the two text fields, then `# Error {code}: {title}`, `## What Happened`, `## What You Should Do`, `---`, footer.
 * `ray_id`, `timestamp` and `zone` are always double-quoted so an all-digit ray or a timestamp reads back as a string.
 */
import type { ErrorFields } from "./fields";
import { yamlScalar } from "./yaml";

export function renderMarkdown(f: ErrorFields): string {
  const retry = f.retry_after === undefined ? "" : `retry_after: ${yamlScalar(f.retry_after)}\n`;
  return (
    "---\n" +
    `error_code: ${yamlScalar(f.error_code)}\n` +
    `error_name: ${yamlScalar(f.error_name)}\n` +
    `error_category: ${yamlScalar(f.error_category)}\n` +
    `status: ${yamlScalar(f.status)}\n` +
    `ray_id: ${yamlScalar(f.ray_id, { quote: true })}\n` +
    `timestamp: ${yamlScalar(f.timestamp, { quote: true })}\n` +
    `zone: ${yamlScalar(f.zone, { quote: true })}\n` +
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
