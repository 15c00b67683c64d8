/**
 * One object per request, made once by `src/app.ts` and handed to everything below it (the three doors, the error
 * pipeline, the API kit): the request, its parsed URL, the zone name, the bindings, the execution context and the
 * settings. Plain data, no behaviour: a function that needs one of these takes the context, not the pieces by
 * position (docs/architecture.md "One request context").
 */
import { zoneOf } from "./host";
import { settingsFor, type Settings } from "./settings";

export interface RequestContext {
  readonly request: Request;
  /** `request.url`, parsed once. */
  readonly url: URL;
  /** The requested hostname, lower-case, no port (`zoneOf(url)`): computed once per request, here. */
  readonly zone: string;
  readonly env: Env;
  readonly ctx: ExecutionContext;
  readonly settings: Settings;
  /**
   * `Date.now()` when the request arrived: the start of a generated error's `Server-Timing` (docs/errors.md
   * "Server-Timing"). The runtime's clock advances only on I/O, so this is the one read a request pays.
   */
  readonly started: number;
}

/** The context of one request, as the Worker's `fetch` receives it. */
export function requestContextOf(request: Request, env: Env, ctx: ExecutionContext): RequestContext {
  const url = new URL(request.url);
  return { request, url, zone: zoneOf(url), env, ctx, settings: settingsFor(env), started: Date.now() };
}
