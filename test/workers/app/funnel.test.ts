/**
 * The last-resort funnel of src/app.ts (docs/origin.md): an exception escaping a handler is the service's
 * own unhandled exception → structured 1101 on zone traffic, a 500 envelope on the API; never the runtime's bare 500.
 * The exception is real: an `env` whose binding getter throws, as a broken deployment would.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FIELD_ORDER } from "../../../src/errors/fields";
import worker from "../../../src/index";

function brokenEnv(binding: "CONFIG" | "TAG_STORE" | "ORIGIN_FAULTS"): Env {
  return new Proxy(env, {
    get(target, key, receiver) {
      if (key === binding) throw new TypeError(`${binding} exploded`);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** `request` whose `headers` throw when read, as a broken request object would. */
function withUnreadableHeaders(request: Request): Request {
  return new Proxy(request, {
    get(target, key) {
      if (key === "headers") throw new TypeError("headers exploded");
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function call(url: string, init: RequestInit, e: Env): Promise<Response> {
  return serve(new Request(url, init), e);
}

/** The Worker's answer to `request`, once its invocation has finished (its `waitUntil` work included). */
async function serve(request: Request, e: Env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("unhandled exceptions", () => {
  it("CONFIG unavailable on zone traffic is the service's internal failure: a structured 500 (docs/origin.md)", async () => {
    const res = await call(
      "http://shop-config.example/x",
      { headers: { Accept: "application/json" } },
      brokenEnv("CONFIG"),
    );
    expect(res.status).toBe(500);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ error_code: 500, zone: "shop-config.example", edge_error: true });
    expect(JSON.stringify(body)).not.toContain("exploded");
  });

  it("on zone traffic answer a structured 1101 in the negotiated format", async () => {
    const local: Env = { ...env, DEFAULT_ORIGIN: "http://127.0.0.1:9" };
    const broken = new Proxy(local, {
      get(target, key, receiver) {
        if (key === "ORIGIN_FAULTS") throw new TypeError("ORIGIN_FAULTS exploded");
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const res = await call("http://shop-funnel.example/x", { headers: { Accept: "application/json" } }, broken);
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Ray-ID")).toMatch(/^[0-9a-f]{16}$/);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ error_code: 1101, zone: "shop-funnel.example", edge_error: true, retryable: false });
    expect(JSON.stringify(body)).not.toContain("exploded"); // the cause is logged, never sent
  });

  it("on the management API answer a 500 envelope with a reference, not a stack trace", async () => {
    const res = await call(
      "http://localhost/accounts/0123456789abcdef0123456789abcdef/tags/keys",
      { headers: { Authorization: "Bearer test-admin-token" } },
      brokenEnv("TAG_STORE"),
    );
    expect(res.status).toBe(500);
    const body = await res.json<{ success: boolean; errors: { code: number; message: string }[] }>();
    expect(body.success).toBe(false);
    expect(body.errors[0]?.code).toBe(10500);
    expect(body.errors[0]?.message).toMatch(/reference [0-9a-f]{16}$/);
    expect(JSON.stringify(body)).not.toContain("exploded");
  });

  it("on zone traffic, when reading the request and then the pipeline throw: the 1101 still, never a rejection", async () => {
    // The header scan of zone traffic throws, then the pipeline's 1101 throws reading the same headers, and the
    // funnel's fallback answers (the preview endpoint's case below takes the service path instead).
    const local: Env = { ...env, DEFAULT_ORIGIN: "http://127.0.0.1:9" };
    const real = new Request("http://shop-funnel.example/x", { headers: { Accept: "text/html" } });
    const res = await serve(withUnreadableHeaders(real), local);
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ error_code: 1101, zone: "shop-funnel.example", edge_error: true });
    expect(JSON.stringify(body)).not.toContain("exploded");
  });

  it("when the pipeline itself throws, still the structured 1101 with the headers of docs/errors.md", async () => {
    // A request whose headers cannot be read: the zone path and then the pipeline's own 1101 both throw.
    const real = new Request("http://shop-funnel.example/cdn-cgi/error/522", { headers: { Accept: "text/html" } });
    const res = await serve(withUnreadableHeaders(real), env);
    expect(res.status).toBe(500);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("Vary")).toBe("Accept, Accept-Language");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const ray = res.headers.get("Ray-ID");
    expect(ray).toMatch(/^[0-9a-f]{16}$/);
    const body = await res.json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(FIELD_ORDER.filter((k) => k !== "retry_after"));
    expect(body).toMatchObject({
      error_code: 1101,
      status: 500,
      ray_id: ray,
      instance: ray,
      zone: "shop-funnel.example",
      edge_error: true,
      type: "http://shop-funnel.example/cdn-cgi/errors/1101",
    });
    expect(JSON.stringify(body)).not.toContain("exploded");
  });
});
