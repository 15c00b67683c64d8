/**
 * Shared helpers of the origin and zone tests: write zones through the real API, send zone traffic through
 * the real Worker, read the structured error the service generated.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, inject } from "vitest";
import { catalogEntry } from "../../../src/errors/catalog";
import worker from "../../../src/index";
import type { OriginPorts } from "../../servers/context";
import { apiOk } from "./envelope";

export { ADMIN } from "./envelope";
export const ports: OriginPorts = inject("originPorts");

/** `http://127.0.0.1:{port}` (or https). */
export const loopback = (port: number, scheme: "http" | "https" = "http"): string => `${scheme}://127.0.0.1:${port}`;

let counter = 0;
/** A zone name unique within the run (storage is per file, the zone cache per isolate). */
export function uniqueZone(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}.example`;
}

/** `PUT /zones/{zone}` through the real API; asserts success. */
export async function putZone(zone: string, settings: Record<string, unknown>): Promise<void> {
  await apiOk("PUT", `/zones/${zone}`, { plan: "pro", ...settings });
}

/**
 * Short timeouts, for a test that waits for one to fire (a 522, a 524, a stream's idle limit): the wait is the test's
 * own time, and a loaded machine only makes a timeout fire sooner relative to the work, never later.
 */
export const TIMES_OUT = { connect_timeout: 0.3, read_timeout: 0.8 } as const;

/**
 * A zone whose origin is `origin`. Its timeouts are generous (5 s to connect, 10 s for the headers): a test that
 * expects the origin's answer, or a failure the runtime reports at once (a refused connection, a bad certificate),
 * must not get a 522 or 524 because a loaded machine was slow (a handshake slower than the read timeout is a 524; a
 * test expecting 526 under a 0.5 s read timeout failed once at load 8). A test that expects a timeout passes
 * `TIMES_OUT`.
 */
export async function zoneFor(label: string, origin: string, extra: Record<string, unknown> = {}): Promise<string> {
  const zone = uniqueZone(label);
  await putZone(zone, { origin, connect_timeout: 5, read_timeout: 10, ...extra });
  return zone;
}

export interface StructuredError {
  readonly error_code: number;
  readonly status: number;
  readonly zone: string;
  readonly ray_id: string;
}

/** Sends zone traffic asking for JSON and expects the structured error `code` with its catalog status. */
export async function expectGeneratedError(res: Response, code: number): Promise<StructuredError> {
  const text = await res.text();
  const status = catalogEntry(code)?.status;
  expect(status, `code ${code} is in the catalog`).toBeDefined();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as StructuredError;
  expect(body.error_code).toBe(code);
  expect(res.headers.get("Ray-ID")).toBe(body.ray_id);
  return body;
}

export const JSON_ACCEPT = { Accept: "application/json" };

/** Zone traffic through the Worker's own handler, asking for JSON; its after-response work is awaited too. */
export async function sendTraffic(url: string, headers: Readonly<Record<string, string>> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { headers: { Accept: "application/json", ...headers } }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Expects `path` on `zone` to reach the origin; answers the request target the origin received (it echoes it). */
export async function expectForwarded(zone: string, path: string): Promise<string> {
  const res = await sendTraffic(`http://${zone}${path}`);
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { url: string }).url;
}
