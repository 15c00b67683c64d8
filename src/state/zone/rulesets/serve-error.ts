/**
 * `serve_error` with `asset_name` (the published custom error documentation, https://developers.cloudflare.com/rules/custom-errors/; docs/custom-errors.md "Custom error assets"): the
 * published alternative to inline `content`. Exactly one of them: a rule names an asset, or carries its content and
 * content type. The asset is served as `text/html` (it is an HTML page with its styles and images inlined), so
 * `content_type` may be given only as `text/html`; `status_code` as with inline content. Whether the named asset
 * exists is checked against the zone document the write is based on (`missingAssets`, custom-pages/assets.ts).
 */
import * as z from "zod/mini";
import { ASSET_NAME } from "../custom-pages/asset-name";
import { absent, described, fields, int, later, type Output } from "../../../shared/schema";

/** A custom error's status: the published range (docs/custom-errors.md). */
const STATUS_RANGE = { min: 400, max: 599 } as const;
export const statusCode = () =>
  int(
    STATUS_RANGE.min,
    STATUS_RANGE.max,
    `must be an integer from ${STATUS_RANGE.min} to ${STATUS_RANGE.max} (docs/custom-errors.md)`,
  );

/** `serve_error` naming an asset: the document's shape, and the validator of its fields. */
export const ASSET_SERVE_ERROR = later(() =>
  described(
    fields(
      {
        content: absent("must be absent when asset_name is given (exactly one of them)"),
        content_type: z.optional(
          z.literal("text/html", { error: "must be text/html or absent with asset_name (an asset is an HTML page)" }),
        ),
        asset_name: ASSET_NAME,
        status_code: z.optional(statusCode()),
      },
      "is not a parameter of serve_error",
    ),
    "A custom error asset of the zone (`/custom_pages/assets`), served as text/html; it must exist when the rule is " +
      "written (400, 20021), and cannot be deleted while a rule names it (409, 20044).",
  ),
);

/** A rule serving a custom error asset (stored without `content_type`, which can only be text/html, nor the absent `content`). */
export type AssetServeError = Omit<Output<typeof ASSET_SERVE_ERROR>, "content" | "content_type">;

/** Whether a rule's parameters name an asset (the stored shape has no `kind`: it is the published wire shape). */
export function servesAsset<T extends object>(parameters: T | AssetServeError): parameters is AssetServeError {
  return "asset_name" in parameters;
}
