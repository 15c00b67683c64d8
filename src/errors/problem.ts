/**
 * Plain RFC 9457 problems for the service endpoints' own failures (docs/errors.md): an unknown or malformed code,
 * an unknown path (404), a method other than GET/HEAD (405). Only the standard members `type: about:blank`,
 * `title`, `status`, `detail` (RFC 9457 §3.1, §4.2.1): these are not edge errors, so none of the edge fields and
 * no `edge_error` log line. Negotiated like an error (docs/negotiation.md).
 */
import type { ErrorFormatChoice } from "./format";
import { html } from "./html";
import { htmlPage } from "./page";
import { yamlScalar } from "./yaml";

export interface Problem {
  readonly type: "about:blank";
  readonly title: string;
  readonly status: number;
  readonly detail: string;
}

/** The problems the endpoints answer, with RFC 9110's reason phrases as titles (RFC 9457 §4.2.1). */
export const PROBLEMS = {
  unknownCode: (): Problem => ({
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail:
      "The path does not name an error code of the catalog. Codes are canonical decimal numbers such as 522 or 1015; see the list of every code under /errors.",
  }),
  unknownPath: (): Problem => ({
    type: "about:blank",
    title: "Not Found",
    status: 404,
    detail:
      "No service endpoint at this path. Endpoints: /error/{code}, /errors and /errors/{code} under the service prefix.",
  }),
  methodNotAllowed: (allow: readonly string[]): Problem => ({
    type: "about:blank",
    title: "Method Not Allowed",
    status: 405,
    detail: `This endpoint accepts ${allow.join(", ")} only.`,
  }),
} as const;

export function renderProblem(problem: Problem, choice: ErrorFormatChoice): string {
  switch (choice.format) {
    case "json":
    case "problem+json":
      return JSON.stringify(problem);
    case "markdown":
      return (
        `---\ntype: ${yamlScalar(problem.type, { quote: true })}\ntitle: ${yamlScalar(problem.title)}\n` +
        `status: ${problem.status}\ndetail: ${yamlScalar(problem.detail)}\n---\n\n` +
        `# ${problem.title}\n\n${problem.detail}\n`
      );
    case "html":
      return htmlPage(
        `${problem.status} ${problem.title}`,
        html`<main>
<p class="eyebrow">HTTP ${problem.status}</p>
<h1>${problem.title}</h1>
<section class="card"><p>${problem.detail}</p></section>
</main>`,
      );
  }
}
