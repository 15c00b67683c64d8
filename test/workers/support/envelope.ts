/**
 * The management API as tests call it: one request through the real Worker's own `fetch` on the API host
 * (`workerFetch`: the pool's `exports.default` costs more with every call a file makes), as the admin unless told
 * otherwise, and the v4 envelope it answers (docs/tags-api.md, docs/configuration.md "API error codes";
 * src/api/kit/envelope.ts). One declaration for every test, so that a test says what it sends and what it expects,
 * not how to send it.
 */
import { expect } from "vitest";
import { workerFetch } from "./worker-fetch";

/** The admin token of the test configuration (vitest.config.ts `ADMIN_TOKEN`). */
export const ADMIN = { Authorization: "Bearer test-admin-token" };

/** The v4 API envelope as tests read it. */
export interface Envelope<T = unknown> {
  readonly success: boolean;
  readonly errors: { readonly code: number; readonly message: string }[];
  readonly messages: unknown[];
  readonly result: T;
  readonly result_info?: {
    readonly count: number;
    readonly per_page: number;
    readonly cursor: string | null;
    readonly cursors: { readonly after: string | null };
  };
}

/** The path of a zone's entry point ruleset of `phase` (docs/rulesets-api.md). */
export const entrypoint = (zone: string, phase: string): string => `/zones/${zone}/rulesets/phases/${phase}/entrypoint`;

/**
 * Sends one API request and hands back the Response. A string or a stream is sent as it is (malformed JSON, exact
 * bytes, a body that never says its length), any other body as JSON, with `Content-Type: application/json`. `headers` are every other request header: the
 * admin token by default; pass `{}` for none, or `{ ...ADMIN, … }` to add to it.
 */
export function apiFetch(
  method: string,
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = ADMIN,
): Promise<Response> {
  if (body === undefined) return workerFetch(`http://localhost${path}`, { method, headers });
  return workerFetch(`http://localhost${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" || body instanceof ReadableStream ? body : JSON.stringify(body),
  });
}

/** An API answer, read whole. */
export interface ApiAnswer<T> {
  readonly status: number;
  readonly headers: Headers;
  /** The body as sent: empty for a 204. */
  readonly text: string;
  /** The envelope, parsed from `text` on first read; reading it from an empty body (a 204) fails the test. */
  readonly body: Envelope<T>;
}

/** `apiFetch`, its body read: the envelope typed with `T` as its `result`. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Readonly<Record<string, string>>,
): Promise<ApiAnswer<T>> {
  const res = await apiFetch(method, path, body, headers);
  const text = await res.text();
  let envelope: Envelope<T> | undefined;
  return {
    status: res.status,
    headers: res.headers,
    text,
    get body(): Envelope<T> {
      if (text === "") throw new Error(`${method} ${path} answered ${res.status} with no body, so no envelope`);
      return (envelope ??= JSON.parse(text) as Envelope<T>);
    },
  };
}

/** A request that must succeed: expects 200 (the body as the failure's message) and returns its envelope. */
export async function apiOk<T = unknown>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  const answer = await api<T>(method, path, body);
  expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 500)}`).toBe(200);
  return answer.body;
}
