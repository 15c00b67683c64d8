/**
 * The bundle's schema (docs/config-as-code.md "The bundle"): composed from each section's own request schema, so a
 * section of a bundle is checked by exactly what checks that section's endpoint, and the OpenAPI component
 * `ZoneBundle` refers to theirs. Rules are the one exception: a ruleset is validated by the rulesets API's own
 * parser (`parseRuleset`), which needs the zone's plan and stored rules, so here a rule is only an object.
 */
import * as z from "zod/mini";
import { described, fields, later, named } from "../../shared/schema";
import { ZONE_SETTINGS } from "../../state/zone/schema";
import { PAGE_CONTENT_BODY } from "../../state/zone/custom-pages/validate";
import { ASSET_UPDATE } from "../../state/zone/custom-pages/assets";
import { ACCESS_RULES_BODY } from "../../state/zone/access-rules/validate";
import { URL_NORMALIZATION_BODY } from "../../state/zone/url-normalization/validate";
import { TELEMETRY_BODY } from "../../state/zone/telemetry/settings";
import { ALERT_POLICY_BODY } from "../../state/analytics/alerts";
import { TAG_KEY, TAG_VALUE } from "../../state/tags/tag-schema";
import { MAX_KEY_CODE_POINTS } from "../../state/tags/errors";
import { text } from "../../shared/schema";

const sha256 = () => text({ pattern: /^[0-9a-f]{64}$/ }, "must be 64 lower-case hex characters (a SHA-256)");

/** A phase's ruleset: its rules in order (each a `RuleBody` with `ref` for its id), its name and description. */
const bundleRuleset = () =>
  fields(
    {
      rules: described(
        z.array(z.record(z.string(), z.unknown()), { error: "must be an array of rules" }),
        "In order; each as the rulesets API takes a rule (`RuleBody`), its id as `ref`: a rule without `ref` is new",
      ),
      name: z.optional(z.string()),
      description: z.optional(z.string()),
    },
    "is not a field of a bundle's ruleset (rules, name, description)",
  );

/** An asset by name: what makes it (description, url) and the SHA-256 of the HTML stored from it. */
const bundleAsset = () =>
  z.extend(z.omit(ASSET_UPDATE(), { name: true }), {
    sha256: z.optional(described(sha256(), "The SHA-256 of the stored HTML (shown; a different one re-fetches `url`)")),
  });

export const ZONE_BUNDLE = later(() =>
  named(
    fields(
      {
        zone: z.optional(described(z.string(), "The zone (shown; must be the path's zone when given)")),
        settings: z.optional(ZONE_SETTINGS()),
        rulesets: z.optional(
          fields(
            {
              http_custom_errors: z.optional(bundleRuleset()),
              http_request_firewall_custom: z.optional(bundleRuleset()),
              http_ratelimit: z.optional(bundleRuleset()),
            },
            "is not a phase",
          ),
        ),
        custom_pages: z.optional(
          fields(
            { "500_errors": z.optional(PAGE_CONTENT_BODY()), "1000_errors": z.optional(PAGE_CONTENT_BODY()) },
            "is not a custom page",
          ),
        ),
        custom_assets: z.optional(z.record(z.string(), bundleAsset())),
        access_rules: z.optional(ACCESS_RULES_BODY()),
        url_normalization: z.optional(z.nullable(URL_NORMALIZATION_BODY())),
        telemetry: described(
          z.optional(z.nullable(TELEMETRY_BODY())),
          'Header values are secrets: shown as "set"; "set" keeps the value stored',
        ),
        alert_policies: described(
          z.optional(z.record(z.string(), ALERT_POLICY_BODY())),
          "By policy id; the signing secret is never shown",
        ),
        tags: described(
          // A key refused is worded as the tags API words it, not as the schema's bare `is not valid`.
          z.optional(
            z.record(TAG_KEY(), TAG_VALUE(), {
              error: (issue) =>
                issue.code === "invalid_key"
                  ? "is not a valid tag key: letters of any script (with combining marks), decimal digits, '_', '.' " +
                    `and '-', at most ${MAX_KEY_CODE_POINTS} code points`
                  : undefined,
            }),
          ),
          "The zone's own tags (shown to a token with tags:read, for a zone in an account)",
        ),
      },
      "is not a section of a bundle",
    ),
    {
      id: "ZoneBundle",
      description:
        'A zone\'s whole configuration (docs/config-as-code.md "The bundle"): every section of the zone, the ' +
        "rules by `ref`, assets by name and hash, no secrets.",
      example: {
        settings: { plan: "pro", origin: "https://origin.shop.example" },
        rulesets: {
          http_request_firewall_custom: {
            rules: [
              {
                ref: "2f5b8c3e0d7a4b1c9e6f0a3d5b7c9e1f",
                expression: 'starts_with(http.request.uri.path, "/admin")',
                action: "block",
                description: "No admin through the edge",
                enabled: true,
              },
            ],
          },
        },
        access_rules: { rules: [] },
        url_normalization: null,
        telemetry: null,
        alert_policies: {},
      },
    },
  ),
);
