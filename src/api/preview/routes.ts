/**
 * The preview endpoints (docs/configuration.md), authenticated like every management request (`zones:read` on the zone:
 * they store nothing):
 *
 * - `GET|HEAD /zones/{zone}/preview/{code}`: exactly the response the zone would serve for error `{code}` to this
 *   request (its `Accept` and other headers), the zone's custom error rules and pages applied, through the same
 *   pipeline as real errors.
 * - `POST /zones/{zone}/preview`: a draft (rules and/or pages, not saved) or the saved configuration, and
 *   a described request → what each format would serve, which step answered, every rule's outcome and the cost,
 *   from the code traffic runs (explain.ts, its trace in trace.ts). docs/custom-errors.md "Draft preview". It costs
 *   what traffic costs: the saved configuration is the compiled zone's, a draft is compiled once per content
 *   (draft-cache.ts), and each token's previews of a zone are bounded in number and rate (bound.ts, 429).
 * - `POST /zones/{zone}/preview/replay`: the same draft against the zone's recorded errors of a window (replay.ts,
 *   docs/custom-errors.md "Replay").
 */
import { bodyText, parseJsonText } from "../kit/body";
import { apiSuccess } from "../kit/envelope";
import type { ApiContext, ApiRoute } from "../kit/types";
import { zoneHandler, zoneTarget, type ZoneAnswer, type ZoneApiFailure } from "../kit/zone-section";
import { err, ok, type Result } from "../../shared/result";
import { catalogEntry } from "../../errors/catalog";
import { errorResponse } from "../../errors/pipeline";
import { assetsOf, customizationFor } from "../../edge/custom-errors/apply";
import { explain } from "../explain/explain";
import { requestPhasesOf } from "../explain/request-phases";
import { compiledZone } from "../../edge/compiled-zone";
import { admitPreview, PREVIEW_BOUNDS } from "../explain/bound";
import { parsePreviewBody, type PreviewBody } from "./draft";
import { draftedZone } from "./drafted-zone";
import { lintMessages } from "../kit/lint-messages";
import { replay } from "./replay";
import { inTurn, pacedBodyBytes, Turns } from "../explain/turns";

async function preview(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  const raw = c.params.code ?? "";
  const entry = /^[1-9][0-9]{2,3}$/.test(raw) ? catalogEntry(Number(raw)) : undefined;
  if (!entry) return err({ kind: "unknown-error-code", code: raw });
  // The zone as traffic sees it (the compiled zone, KV behind it), not the writer's copy: the preview is exactly
  // what the edge would serve now.
  const config = await compiledZone(c.env, zone);
  if (!config.ok) return config;
  if (config.value === null) return err({ kind: "not-found" });
  const customization = customizationFor(config.value.customErrors, c.env.CONFIG);
  const event = { code: entry.code, request: c.request, cause: "preview through the zone API", preview: true };
  const { retryHints, readTimeout, languages } = config.value;
  const scope = { settings: c.settings, zone, customization, ctx: c.ctx, retryHints, readTimeout, languages };
  return ok((await errorResponse(event, scope)).response);
}

async function draftPreview(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  // Bounded per token and zone before the body is read (bound.ts): the only work a refused preview costs is this.
  const admission = admitPreview(c.principal, zone);
  if (admission.kind === "limited")
    return err({
      kind: "preview-limited",
      why: admission.why,
      retryAfter: admission.retryAfter,
      bounds: PREVIEW_BOUNDS,
    });
  try {
    return await runDraftPreview(c, zone);
  } finally {
    admission.release();
  }
}

async function runDraftPreview(c: ApiContext, zone: string): Promise<ZoneAnswer> {
  // Read first (I/O, in steps that let traffic go first: turns.ts `pacedBodyBytes`), then decoded, parsed and
  // validated in a turn: a body near the 1 MiB limit is a piece of tens of milliseconds, and eight calls' pieces back
  // to back would hold traffic for all of them.
  const bytes = await pacedBodyBytes(c.request);
  if (!bytes.ok) return err({ kind: "body", failure: bytes.error });
  const input = await inTurn((): Result<PreviewBody, ZoneApiFailure> => {
    const text = bodyText(bytes.value);
    if (!text.ok) return err({ kind: "body", failure: text.error });
    const body = parseJsonText(text.value);
    return body.ok ? parsePreviewBody(body.value, zone) : err({ kind: "body", failure: body.error });
  });
  if (!input.ok) return input;
  // The zone as traffic sees it, the draft on top (drafted-zone.ts).
  const drafted = await draftedZone(c, zone, input.value.draft);
  if (!drafted.ok) return drafted;
  const { current, compiled, custom, stored, pages, linted } = drafted.value;
  // The five runs take their turns with traffic (turns.ts); closed whatever happens.
  const turns = new Turns();
  const explained = await explain(input.value.request, {
    turns,
    compiled: custom,
    stored,
    pages,
    // The saved request phases (a draft holds custom error rules and pages only), as traffic runs them.
    requestPhases: requestPhasesOf(compiled, current.document),
    // Custom error assets are not part of a draft: a rule naming one serves the zone's saved asset.
    assets: assetsOf(compiled.customErrors, c.env.CONFIG),
    zone,
    settings: c.settings,
    invocation: c.ctx,
    // The zone's retry-hint profile, as traffic sends it (docs/errors.md "Retry-hint profiles").
    retryHints: compiled.retryHints,
    readTimeout: compiled.readTimeout,
    languages: compiled.languages,
  }).finally(() => turns.close());
  const { request } = input.value;
  // The rule linter's warnings about the configuration previewed (the draft on the saved zone), docs/lint.md.
  const messages = await lintMessages(c.env, zone, linted, inTurn);
  // The answer (a few hundred rules' trace, up to about a megabyte of JSON) is written in a turn too.
  return ok(
    await inTurn(() =>
      apiSuccess(
        {
          zone,
          version: current.version,
          draft: input.value.draft !== null,
          request: { method: request.method, url: request.url.href },
          ...explained,
        },
        { messages },
      ),
    ),
  );
}

export const previewRoutes: readonly ApiRoute[] = [
  // Before `/preview/:code`: the first path that matches decides (src/api/kit/mount.ts), and "replay" is no code.
  {
    method: "POST",
    path: "/zones/:zone/preview/replay",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(replay),
  },
  {
    method: "GET",
    path: "/zones/:zone/preview/:code",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(preview),
  },
  {
    method: "HEAD",
    path: "/zones/:zone/preview/:code",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(preview),
  },
  {
    method: "POST",
    path: "/zones/:zone/preview",
    permission: "zones:read",
    target: zoneTarget,
    handle: zoneHandler(draftPreview),
  },
];
