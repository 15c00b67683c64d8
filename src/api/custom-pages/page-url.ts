/**
 * A custom page given by the published `url` (`PUT /zones/{zone}/custom_pages/{id}` `{state: "customized", url}`,
 * what the official client's `customPages.update` sends; docs/custom-errors.md "Error pages"): the page is fetched
 * and inlined exactly as a custom error asset is (asset-fetch.ts: the URL in the zone's scope, only its path and query
 * asked of the zone's own origin, stylesheets and images inlined, the same 1.5 MB and resource limits, the zone's
 * read timeout), and the HTML it yields is then the page's `content`, validated by the page's own validator in the
 * zone's writer (`<head>`, the box token). `content` stays accepted; a body gives one or the other.
 */
import { fetchZoneAsset } from "../asset-fetch/asset-fetch";
import type { ApiContext } from "../kit/types";
import { readZone, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { isObject, oneIssue, type IssueKind } from "../../shared/validation";
import { parseAssetUrl, type AssetFailure } from "../../state/zone/custom-pages/assets";

/** The page body for the writer (`url` replaced by the fetched `content`), and the URL it came from. */
export interface PageBodyFromUrl {
  readonly body: unknown;
  readonly url: string | null;
}

/**
 * A body without `url` is passed on as sent. With it: `state: "default"` takes it only empty (the official client
 * sends `url` on every update); `customized` takes it instead of `content`, fetched here (cheap refusals first: the
 * URL, the zone, its plan), so that what the writer validates is the inlined page.
 */
export async function pageBodyFromUrl(
  c: ApiContext,
  zone: string,
  body: unknown,
): Promise<Result<PageBodyFromUrl, ZoneApiFailure>> {
  if (!isObject(body) || !Object.hasOwn(body, "url")) return ok({ body, url: null });
  const { url, ...rest } = body;
  if (rest.state === "default") {
    return url === "" ? ok({ body: rest, url: null }) : invalid("url", "must be empty or absent when state is default");
  }
  // Any other state is refused by the page's validator, with its own message; nothing is fetched for it.
  if (rest.state !== "customized") return ok({ body: rest, url: null });
  if (rest.content !== undefined) return invalid("url", "give either content or url, not both");
  const scope = { zone, apiHosts: c.settings.apiHosts };
  const parsed = parseAssetUrl(url, scope);
  if (!parsed.ok) return invalid("url", parsed.error, "invalid");
  const current = await readZone(c.env, zone);
  if (!current.ok) return current;
  const { settings } = current.value.zone;
  if (settings.plan === "free") {
    return err({ kind: "plan-forbids", plan: "free", feature: "custom error pages", reason: "they need a paid plan" });
  }
  const fetched = await fetchZoneAsset(c.env, current.value.zone, parsed.value, scope);
  if (!fetched.ok) return err(pageFailure(fetched.error));
  return ok({ body: { ...rest, content: fetched.value.html }, url: parsed.value.href });
}

/** A fetch failure as the page's own refusal (400, 20023), naming `url`. */
function pageFailure(failure: AssetFailure): ZoneApiFailure {
  switch (failure.kind) {
    case "asset-fetch-failed":
      return pageIssue("url", `could not be fetched: ${failure.reason}; nothing was stored`);
    case "asset-too-large":
      return pageIssue(
        "url",
        `the inlined page would be ${failure.bytes} bytes (${failure.what}), over the limit of ${failure.limit} bytes; nothing was stored`,
      );
    default:
      // Name, plan and count checks belong to assets; the fetch answers only the two kinds above.
      return failure;
  }
}

const pageIssue = (path: string, message: string, kind: IssueKind = "invalid"): ZoneApiFailure => ({
  kind: "invalid-page",
  issues: oneIssue(kind, path, message),
});

function invalid(path: string, message: string, kind: IssueKind = "not-allowed"): Result<never, ZoneApiFailure> {
  return err(pageIssue(path, message, kind));
}
