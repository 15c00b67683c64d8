/**
 * The published rule for a custom error asset's name (docs/custom-errors.md "Custom error assets"): `[A-Za-z0-9_]`,
 * 1 to 200 characters. A leaf of its own because two sides check it: the asset API (assets.ts) and a custom error
 * rule that names an asset (src/state/zone/rulesets/serve-error.ts); assets.ts in turn reads the stored rules to find
 * an asset's users, so neither side may import the other.
 */
import * as z from "zod/mini";
import { later, parseWith } from "../../../shared/schema";
import type { IssueKind } from "../../../shared/validation";

/** The longest name, in characters. */
export const ASSET_NAME_LENGTH = 200;
const LENGTH = `must be 1 to ${ASSET_NAME_LENGTH} characters`;

/** A name as a body, the path or a rule gives it: the validator and the document's `AssetName`. */
export const ASSET_NAME = later(
  () =>
    z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).check(
      // A name of the wrong length is refused for that alone (the pattern's message would quote all of it).
      z.minLength(1, { error: LENGTH, abort: true }),
      z.maxLength(ASSET_NAME_LENGTH, { error: LENGTH, abort: true }),
      z.regex(/^[A-Za-z0-9_]+$/, {
        error: (issue) =>
          `${JSON.stringify(issue.input)} may only contain letters (A-Z, a-z), digits (0-9) and underscores (_)`,
      }),
    ),
  { id: "AssetName", description: "A custom error asset's name (immutable)", example: "maintenance_page" },
);

/** What is wrong with an asset name, or `null`. */
export function assetNameProblem(name: unknown): { readonly kind: IssueKind; readonly message: string } | null {
  const parsed = parseWith(ASSET_NAME, name);
  const first = parsed.ok ? undefined : parsed.error.listed[0];
  return first === undefined ? null : { kind: first.kind, message: first.message };
}
