/**
 * The published rule for a custom error asset's name (docs/custom-errors.md "Custom error assets"): `[A-Za-z0-9_]`,
 * 1 to 200 characters. A leaf of its own because two sides check it: the asset API (assets.ts) and a custom error
 * rule that names an asset (src/state/zone/rulesets/serve-error.ts); assets.ts in turn reads the stored rules to find
 * an asset's users, so neither side may import the other.
 */
import type { IssueKind } from "../../../shared/validation";

/** The longest name, in characters. */
export const ASSET_NAME_LENGTH = 200;
const ASSET_NAME = /^[A-Za-z0-9_]+$/;

/** What is wrong with an asset name, or `null`. */
export function assetNameProblem(name: unknown): { readonly kind: IssueKind; readonly message: string } | null {
  if (typeof name !== "string") return { kind: "wrong-type", message: "must be a string" };
  if (name.length === 0 || name.length > ASSET_NAME_LENGTH)
    return { kind: "out-of-range", message: `must be 1 to ${ASSET_NAME_LENGTH} characters` };
  if (!ASSET_NAME.test(name))
    return {
      kind: "invalid",
      message: `${JSON.stringify(name)} may only contain letters (A-Z, a-z), digits (0-9) and underscores (_)`,
    };
  return null;
}
