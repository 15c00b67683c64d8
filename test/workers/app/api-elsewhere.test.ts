/**
 * An API path sent to an IP address that is not an API host (docs/configuration.md "API paths on an IP address"):
 * the official client pointed at `http://127.0.0.1:8787/client/v4` (the tests' API_HOSTS is `localhost`) gets the v4
 * envelope, 404 (20072), naming the API base URLs, never the HTML page of 1003; other paths on the IP are still 1003,
 * and a zone's own `/client/v4/…` paths are still its traffic, forwarded to its origin.
 */
import Cloudflare from "cloudflare";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { destinationOf } from "../../../src/app";
import { parseSettings } from "../../../src/shared/settings";
import { expectForwarded, loopback, ports, zoneFor } from "../support/origin";

interface FailureEnvelope {
  readonly success: boolean;
  readonly errors: { readonly code: number; readonly message: string }[];
  readonly result: null;
}

describe("an API path on an IP address that is no API host", () => {
  it("the official client gets a 404 envelope naming the API host, not the 1003 page", async () => {
    const client = new Cloudflare({
      apiToken: "test-admin-token",
      baseURL: "http://127.0.0.1:8787/client/v4",
      fetch: (url, init) => exports.default.fetch(url, init),
      maxRetries: 0,
    });
    const refused = await client.zones.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Cloudflare.NotFoundError);
    const error = refused as InstanceType<typeof Cloudflare.NotFoundError>;
    expect(error.status).toBe(404);
    expect(error.errors).toEqual([
      {
        code: 20072,
        message:
          "127.0.0.1 is an IP address, which is neither an API host nor a zone, so no management API answers here: " +
          "use http://localhost:8787/client/v4 (API_HOSTS) instead",
      },
    ]);
  });

  it.each([
    ["GET", "http://127.0.0.1/client/v4/zones"],
    ["PUT", "http://127.0.0.1:8787/client/v4/zones/shop.example"],
    ["GET", "http://127.0.0.1:8787/client/v4"],
    ["DELETE", "https://[2001:db8::1]/client/v4/accounts/x/tags"],
    ["POST", "http://10.0.0.1:8787/client/v4/accounts/0123/request-tracer/trace"],
  ])("%s %s: the envelope, whatever the method and token", async (method, url) => {
    const res = await exports.default.fetch(url, { method, headers: { Accept: "text/html" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
    const body = await res.json<FailureEnvelope>();
    expect(body).toMatchObject({ success: false, result: null });
    expect(body.errors[0]?.code).toBe(20072);
    const { protocol, port } = new URL(url);
    expect(body.errors[0]?.message).toContain(`use ${protocol}//localhost${port === "" ? "" : `:${port}`}/client/v4`);
  });

  it.each(["http://127.0.0.1:8787/", "http://127.0.0.1:8787/zones", "http://127.0.0.1/client/v4x"])(
    "%s is still direct IP access (1003)",
    async (url) => {
      const res = await exports.default.fetch(url, { headers: { Accept: "application/json" } });
      expect(res.status).toBe(403);
      expect((await res.json<{ error_code: number }>()).error_code).toBe(1003);
    },
  );

  it("a zone's own /client/v4/… paths stay its traffic, forwarded to its origin", async () => {
    const zone = await zoneFor("v4-zone", loopback(ports.http));
    expect(await expectForwarded(zone, "/client/v4/zones")).toBe("/client/v4/zones");
  });

  it("routes by host and path: API host, IP, name", () => {
    const settings = parseSettings({ API_HOSTS: "api.example,[::1]" });
    expect(destinationOf(new URL("http://api.example/client/v4/zones"), settings)).toBe("api");
    expect(destinationOf(new URL("http://[::1]/client/v4/zones"), settings)).toBe("api");
    expect(destinationOf(new URL("http://127.0.0.1/client/v4/zones"), settings)).toBe("api-elsewhere");
    expect(destinationOf(new URL("http://shop.example/client/v4/zones"), settings)).toBe("zone");
    expect(destinationOf(new URL("http://127.0.0.1/cdn-cgi/errors"), settings)).toBe("service");
  });
});
