/** Shared helpers of the tagging API tests: requests through the real Worker, envelope typing. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { etagOf } from "../../../src/state/tags/etag";
import type { TagStore } from "../../../src/state/tags/tag-store";
import { ADMIN, apiFetch, type Envelope } from "./envelope";

export { ADMIN, type Envelope } from "./envelope";

export interface Resource {
  id: string;
  type: string;
  name: string;
  tags: Record<string, string>;
  etag: string;
  tags_updated_at?: string;
  worker_id?: string;
}

/** A fresh account id per call, so tests in one file never share an object (storage is per file). */
let counter = 0;
export function newAccount(): string {
  counter++;
  return (Date.now().toString(16) + counter.toString(16).padStart(4, "0") + crypto.randomUUID().replace(/-/g, ""))
    .slice(0, 32)
    .padEnd(32, "0");
}

export async function call<T = unknown>(
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: Envelope<T> | null }> {
  const body = options.body === undefined ? options.rawBody : JSON.stringify(options.body);
  const res = await apiFetch(method, path, body, { ...ADMIN, ...options.headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : (JSON.parse(text) as Envelope<T>) };
}

export function put(account: string, body: unknown, headers?: Record<string, string>) {
  return call<Resource>("PUT", `/accounts/${account}/tags`, { body, headers });
}

export function worker(id: string, tags: Record<string, string>) {
  return { resource_type: "worker", resource_id: id, tags };
}

/** Every page of a listing, following `result_info.cursor`. */
export async function allPages<T>(path: string): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: Envelope<T[]> | null } = await call<T[]>(
      "GET",
      cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`,
    );
    if (res.status !== 200 || !res.body) throw new Error(`page failed: ${res.status} ${JSON.stringify(res.body)}`);
    pages.push(res.body.result);
    cursor = res.body.result_info?.cursor ?? null;
  } while (cursor !== null);
  return pages;
}

export function errorCode(res: { body: Envelope | null }): number | undefined {
  return res.body?.errors[0]?.code;
}

/**
 * Seeds many resources in one visit to the account's object (the real TagStore.putTags, with real ETags):
 * requests through the pool cost milliseconds each, which would dominate tests that need thousands of rows.
 */
export async function seed(account: string, resources: [id: string, tags: Record<string, string>][]): Promise<void> {
  const withEtags = await Promise.all(
    resources.map(async ([id, tags]) => ({
      id,
      pairs: Object.entries(tags),
      etag: await etagOf(Object.entries(tags)),
    })),
  );
  await runInDurableObject(storeOf(account), (instance: TagStore) => {
    for (const { id, pairs, etag } of withEtags) {
      const res = instance.putTags({
        ref: { type: "worker", parent: "", id },
        tags: pairs,
        etag,
        ifMatch: null,
        limit: 1e9,
      });
      if (!res.ok) throw new Error(JSON.stringify(res.error));
    }
  });
}

export function storeOf(account: string): DurableObjectStub<TagStore> {
  return env.TAG_STORE.get(env.TAG_STORE.idFromName(account));
}
