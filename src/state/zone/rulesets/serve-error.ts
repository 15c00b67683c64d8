/**
 * `serve_error` with `asset_name` (the published custom error documentation, https://developers.cloudflare.com/rules/custom-errors/; docs/custom-errors.md "Custom error assets"): the
 * published alternative to inline `content`. Exactly one of them: a rule names an asset, or carries its content and
 * content type. The asset is served as `text/html` (it is an HTML page with its styles and images inlined), so
 * `content_type` may be given only as `text/html`; `status_code` as with inline content. Whether the named asset
 * exists is checked against the zone document the write is based on (`missingAssets`, custom-pages/assets.ts).
 */
import { assetNameProblem } from "../custom-pages/asset-name";
import { optional, readInt, type IssueKind } from "../../../shared/validation";

/** A rule serving a custom error asset. */
export interface AssetServeError {
  readonly asset_name: string;
  readonly status_code?: number;
}

const ASSET_FIELDS = new Set(["asset_name", "content_type", "status_code"]);

/** Whether a rule's parameters name an asset (the stored shape has no `kind`: it is the published wire shape). */
export function servesAsset<T extends object>(parameters: T | AssetServeError): parameters is AssetServeError {
  return "asset_name" in parameters;
}

/** The `action_parameters` of a rule that gives `asset_name`; issues go to `at` (`rules[i].…`). */
export function parseAssetServeError(
  p: Readonly<Record<string, unknown>>,
  at: (kind: IssueKind, field: string, message: string) => void,
  statusCode: { readonly min: number; readonly max: number },
): AssetServeError | undefined {
  const count = { issues: 0 };
  const issue = (kind: IssueKind, field: string, message: string): void => {
    count.issues++;
    at(kind, `action_parameters.${field}`, message);
  };
  for (const key of Object.keys(p)) {
    if (key === "content") issue("not-allowed", key, "must be absent when asset_name is given (exactly one of them)");
    else if (!ASSET_FIELDS.has(key)) issue("unknown-field", key, "is not a parameter of serve_error");
  }
  if (p.content_type !== undefined && p.content_type !== "text/html")
    issue("not-allowed", "content_type", "must be text/html or absent with asset_name (an asset is an HTML page)");
  const problem = assetNameProblem(p.asset_name);
  if (problem !== null) issue(problem.kind, "asset_name", problem.message);
  const status = optional(p.status_code, (v) =>
    readInt(v, "status_code", {
      ...statusCode,
      message: `must be an integer from ${statusCode.min} to ${statusCode.max} (docs/custom-errors.md)`,
    }),
  );
  if (!status.ok) issue(status.error.kind, "status_code", status.error.message);
  if (count.issues > 0 || typeof p.asset_name !== "string" || !status.ok) return undefined;
  return { asset_name: p.asset_name, ...(status.value === undefined ? {} : { status_code: status.value }) };
}
