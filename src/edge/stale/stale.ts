/**
 * Stale copies for zone traffic (docs/fewer-errors.md "Stale if error", "Stale if slow"): a configured zone's good
 * `GET` answers are kept (copies.ts) when the zone opted in or the answer allows it (`stale-if-error`); a failed
 * origin, or one slower than the zone's `stale_after_ms`, is answered from the copy, labelled (stale-answer.ts).
 * Every write happens after the response (`waitUntil`); a zone that has not opted in pays one header read per good
 * answer and, only when its origin fails, one cache lookup.
 */
import type { RequestContext } from "../../shared/request-context";
import { logEvent } from "../../shared/log";
import { readWithin } from "../../shared/read-within";
import { messageOf } from "../../shared/result";
import { TIMEOUT, within } from "../../shared/timeout";
import { carriesStaleIfError, keepable } from "./cache-control";
import { findCopy, MAX_COPY_BYTES, putCopy, type Copy, type CopyLife, type CopyTarget } from "./copies";
import { labelled, type StaleBecause } from "./stale-answer";
import { claimWrite, forgetWrite } from "./rewrites";

/** A zone's stale settings (docs/configuration.md): both 0 means the zone keeps copies only when an answer asks. */
export interface StaleSettings {
  /** `stale_if_error`: seconds past freshness a copy may answer a failure. */
  readonly ifErrorSeconds: number;
  /** `stale_after_ms`: with a copy, how long to wait for the origin's headers; 0: as long as its read timeout. */
  readonly afterMs: number;
}

export const NO_STALE: StaleSettings = { ifErrorSeconds: 0, afterMs: 0 };

/**
 * Whether the zone opted in (either setting above 0): only then does every `GET` go through the copies' hooks. A zone
 * that did not meets them only through `answerMayUseCopies` and after a failure (zone-traffic.ts).
 */
export function optedIn(settings: StaleSettings): boolean {
  return settings.ifErrorSeconds !== 0 || settings.afterMs !== 0;
}

/**
 * Whether an origin's answer, on a zone that has not opted in, concerns the copies at all: an error a copy may replace,
 * or an answer that asks to be kept (its own `stale-if-error`). Every other answer costs this status test and one read
 * of `Cache-Control`, and no object: what `StaleCopies.onAnswer` would conclude of it, without making one.
 */
export function answerMayUseCopies(status: number, headers: Headers): boolean {
  return ORIGIN_ERRORS.has(status) || carriesStaleIfError(headers);
}

/** A copy served instead of the origin's answer; `failure` what it avoided (null: only a wait, stale-if-slow). */
export interface Served {
  readonly stale: Response;
  readonly failure: number | null;
}

/**
 * The origin's own answers a copy may replace: the gateway failures of RFC 9110 §15.6 (RFC 5861 §4 also names 500,
 * which is left alone: an origin's own 500 is its application's answer, often about this very request).
 */
const ORIGIN_ERRORS = new Set([502, 503, 504]);

/**
 * Copies for one request: only `GET` and `HEAD` of a configured zone (a host without zone config creates no
 * storage, as for analytics); null otherwise.
 */
export function staleCopies(rc: RequestContext, settings: StaleSettings | null): StaleCopies | null {
  if (settings === null) return null;
  const method = rc.request.method;
  return method === "GET" || method === "HEAD" ? new StaleCopies(rc, settings) : null;
}

export class StaleCopies {
  private readonly target: CopyTarget;

  constructor(
    private readonly rc: RequestContext,
    private readonly settings: StaleSettings,
  ) {
    this.target = { zone: rc.zone, url: rc.url, request: rc.request };
  }

  /**
   * The origin's attempt, unless it has no headers after `stale_after_ms` and a usable copy exists: then the copy,
   * and the origin's answer (`answerOf` the attempt, null: none), when it comes, refreshes it (after the response).
   */
  async orSlow<T>(pending: Promise<T>, answerOf: (late: T) => Response | null): Promise<T | Served> {
    const afterMs = this.settings.afterMs;
    if (afterMs === 0) return pending;
    const first = await within(pending, afterMs);
    if (first !== TIMEOUT) return first;
    const copy = await this.usable();
    if (copy === null) return pending;
    this.rc.ctx.waitUntil(pending.then((late) => this.refresh(answerOf(late))));
    return { stale: this.answer(copy, { detail: "stale-if-slow" }), failure: null };
  }

  /**
   * The copy for a failure the edge found (a catalog code: 52x, 502, 1016; `circuit`: the origin was skipped for its
   * open circuit, so the copy says so as the error would have), or null.
   */
  async onFailure(code: number, circuit: boolean): Promise<Served | null> {
    const copy = await this.usable();
    if (copy === null) return null;
    return { stale: this.answer(copy, { detail: "stale-if-error", code, circuit }), failure: code };
  }

  /**
   * The origin's own answer, or the copy when that answer is an error status a copy may replace; a good `GET`
   * answer is kept on the way (its body teed to the copy, after the response).
   */
  async onAnswer(response: Response): Promise<Response | Served> {
    const status = response.status;
    if (ORIGIN_ERRORS.has(status)) {
      const copy = await this.usable();
      if (copy === null) return response;
      await response.body?.cancel();
      return { stale: this.answer(copy, { detail: "stale-if-error", status }), failure: status };
    }
    return this.keep(response);
  }

  /**
   * Keeps a good answer, teeing its body: one branch to the client, one to the copy. A copy this isolate wrote
   * recently is not written again (rewrites.ts), unless the answer has `Vary` (one copy per variant).
   */
  private keep(response: Response): Response {
    const plan = this.planFor(response);
    if (plan === null) return response;
    const once = response.headers.has("Vary") ? null : this.writeKey();
    if (once !== null && !claimWrite(once, plan.ttl, Date.now())) return response;
    if (response.body === null) {
      this.rc.ctx.waitUntil(this.store(response, null, plan, once));
      return response;
    }
    const [toClient, toCopy] = response.body.tee();
    this.rc.ctx.waitUntil(this.store(response, toCopy, plan, once));
    return new Response(toClient, response);
  }

  /** The copy's URL as `rewrites.ts` remembers its writes: zone and URL (the copy's own key, copies.ts, is async). */
  private writeKey(): string {
    return `${this.rc.zone}\n${this.rc.url.href}`;
  }

  /** A late answer after a stale-if-slow copy: kept whole, or its body released. */
  private async refresh(response: Response | null): Promise<void> {
    if (response === null) return;
    const plan = ORIGIN_ERRORS.has(response.status) ? null : this.planFor(response);
    if (plan === null) {
      await response.body?.cancel();
      return;
    }
    await this.store(response, response.body, plan);
  }

  /** Whether and how long a `GET` answer is kept; null: not kept. The cheap test first (docs/fewer-errors.md). */
  private planFor(response: Response): { readonly life: CopyLife; readonly ttl: number } | null {
    const { ifErrorSeconds, afterMs } = this.settings;
    const headers = response.headers;
    if (ifErrorSeconds === 0 && afterMs === 0 && !carriesStaleIfError(headers)) return null;
    const request = this.rc.request;
    if (request.method !== "GET") return null; // a HEAD answer has no body to keep
    const life = keepable(response.status, headers, request.headers.has("Authorization"), ifErrorSeconds);
    if (life.kind === "never") return null;
    const length = headers.get("Content-Length");
    if (length !== null && !(Number(length) <= MAX_COPY_BYTES)) return null;
    // Kept as long as it may be used: fresh, then the larger window, less the age it already had.
    const ttl = life.fresh + Math.max(life.staleIfError, ifErrorSeconds) - life.age;
    return ttl > 0 ? { life, ttl } : null;
  }

  /** Writes the copy; `once`: the key its write was noted under (rewrites.ts), forgotten when nothing was kept. */
  private async store(
    response: Response,
    body: ReadableStream<Uint8Array> | null,
    plan: { readonly life: CopyLife; readonly ttl: number },
    once: string | null = null,
  ): Promise<void> {
    try {
      const bytes = body === null ? null : await readWithin(body, MAX_COPY_BYTES);
      if (body !== null && bytes === null) {
        if (once !== null) forgetWrite(once);
        return; // larger than a copy may be: not kept
      }
      const answer = { status: response.status, headers: response.headers, body: bytes };
      await putCopy(this.target, answer, plan.life, plan.ttl);
    } catch (e) {
      if (once !== null) forgetWrite(once);
      // A copy not kept costs a later failure its copy, never this answer.
      logEvent("stale_copy_unavailable", { zone: this.rc.zone, cause: `keep: ${messageOf(e)}` });
    }
  }

  /**
   * The kept copy, if it may still answer: within its freshness plus the larger of the two windows. Asked only when
   * the origin failed or was slow, so the next good answer writes the copy again (rewrites.ts).
   */
  private async usable(): Promise<Copy | null> {
    forgetWrite(this.writeKey());
    let copy: Copy | null;
    try {
      copy = await findCopy(this.target, Date.now());
    } catch (e) {
      logEvent("stale_copy_unavailable", { zone: this.rc.zone, cause: `find: ${messageOf(e)}` });
      return null;
    }
    if (copy === null) return null;
    if (copy.age - copy.fresh <= Math.max(copy.staleIfError, this.settings.ifErrorSeconds)) return copy;
    await copy.body?.cancel();
    return null;
  }

  private answer(copy: Copy, because: StaleBecause): Response {
    return labelled(copy, this.rc.request.method === "HEAD", because);
  }
}
