/** The custom pages API's part of the OpenAPI document (docs/configuration.md). */
import { jsonBody, ok, operation, param, parameterOf, ref, response, type OpenApiFragment } from "../kit/openapi";
import { assetsOpenApi } from "./assets-openapi";
import { BOX_TOKENS, MAX_PAGE_BYTES, PAGE_ID, PAGE_IDS, PAGE_STATE } from "../../state/zone/custom-pages/validate";
import * as z from "zod/mini";
import { dateTime, described, later, named } from "../../shared/schema";

/** A page as answered: its state and what a page of its class must hold; `content` only in the one-page answers. */
export const CUSTOM_PAGE = later(() =>
  named(
    z.object({
      id: PAGE_ID,
      state: PAGE_STATE(),
      description: z.string(),
      required_tokens: z.array(z.string()),
      box_style_hash: described(
        z.string(),
        "CSP hash-source of the box's inline style, for the page's own `style-src`",
      ),
      modified_on: z.nullable(dateTime()),
      bytes: z.int(),
      url: described(z.string(), "The URL the page was fetched from; empty when given as `content`"),
      content: z.optional(z.nullable(z.string())),
    }),
    { id: "CustomPage" },
  ),
);

export const customPagesOpenApi: OpenApiFragment = {
  description:
    "Custom error pages per class (`500_errors`, `1000_errors`; paid plans) and custom error assets " +
    "(`/custom_pages/assets`, served by `serve_error` rules with `asset_name`).",
  paths: {
    ...assetsOpenApi.paths,
    "/zones/{zone}/custom_pages": {
      parameters: [param("Zone")],
      get: operation("zones:read", "listCustomPages", "Page types with their state", {
        "200": ok("The pages", { type: "array", items: ref("CustomPage") }),
      }),
    },
    "/zones/{zone}/custom_pages/{id}": {
      parameters: [param("Zone"), param("PageId")],
      get: operation("zones:read", "getCustomPage", "One custom page (with its `content` when customised)", {
        "200": ok("The page", ref("CustomPage")),
      }),
      put: operation(
        "zones:write",
        "putCustomPage",
        "Customise a page or restore the default",
        { "200": ok("The page", ref("CustomPage")), "413": response("TooLarge") },
        {
          description:
            "The content must contain `<head>`, `</head>` and the class's box token exactly once " +
            `(${PAGE_IDS.map((id) => `\`${BOX_TOKENS[id][0]}\``).join(" / ")}; the \`::CLOUDFLARE_…::\` spellings ` +
            "are aliases and count with it), never the other class's; at most " +
            `${MAX_PAGE_BYTES} bytes with its \`::RAY_ID::\` and \`::CLIENT_IP::\` tokens at their longest. ` +
            "Paid plans only (403, 1100). Instead of `content`, the published `url`: the page is fetched from the " +
            "zone's own origin and its stylesheets and images inlined, exactly as a custom error asset is (same scope, " +
            "same limits), then validated as `content` is; a refusal names `url` (400, 20023). `state: default` " +
            "takes `url` only empty.",
          requestBody: jsonBody("CustomPageBody"),
        },
      ),
    },
  },
  parameters: {
    ...assetsOpenApi.parameters,
    PageId: parameterOf(PAGE_ID, { name: "id", in: "path", example: "1000_errors" }),
  },
};
