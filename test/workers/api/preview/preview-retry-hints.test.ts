/**
 * The draft preview answers with the zone's retry-hint profile (docs/errors.md "Retry-hint
 * profiles"), as traffic does: on a zone with `retry_hints: "agent"`, each answer's `Retry-After`, `retry-after-ms`
 * and body `retry_after` (JSON, problem+json, the Markdown frontmatter, the HTML island) are the profile's hint for
 * the Ray ID that answer carries; on a `published` zone, the catalog's hint.
 */
import { describe, expect, it } from "vitest";
import { apiOk } from "../../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";

/** docs/errors.md "Retry-hint profiles", restated: c = min(hint, 59); n = the Ray ID's last 8 hex digits. */
function predicted(hint: number, ray: string): number {
  const capped = Math.min(hint, 59);
  return capped - (Number.parseInt(ray.slice(-8), 16) % (Math.floor(capped / 2) + 1));
}

interface Shown {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly answered_by: { readonly kind: string };
}

interface Preview {
  readonly response: Shown;
  readonly responses: Record<"json" | "problem_json" | "markdown" | "html", Shown>;
}

/** The body's `retry_after` and `ray_id`, in whichever format the answer has. */
function bodyFields(shown: Shown): { retry_after: unknown; ray_id: unknown } {
  const type = shown.headers["content-type"] ?? "";
  if (type.startsWith("text/markdown")) {
    return {
      retry_after: Number(/^retry_after: (\d+)$/m.exec(shown.body)?.[1]),
      ray_id: /^ray_id: "?([0-9a-f]{16})"?$/m.exec(shown.body)?.[1],
    };
  }
  if (type.startsWith("text/html")) {
    const island = /<script type="application\/problem\+json" id="edge-error">([\s\S]*?)<\/script>/.exec(shown.body);
    return JSON.parse(island?.[1] ?? "{}") as { retry_after: unknown; ray_id: unknown };
  }
  return JSON.parse(shown.body) as { retry_after: unknown; ray_id: unknown };
}

/** The hint one answer sends: header, milliseconds header and body agree, and all name the answer's Ray ID. */
function hintOf(shown: Shown): { ray: string; hint: number } {
  const ray = shown.headers["ray-id"] ?? "";
  expect(ray).toMatch(/^[0-9a-f]{16}$/);
  const hint = Number(shown.headers["retry-after"]);
  expect(shown.headers["retry-after-ms"]).toBe(String(hint * 1000));
  expect(shown.headers["x-should-retry"]).toBe("true");
  const body = bodyFields(shown);
  expect(body.retry_after).toBe(hint);
  expect(body.ray_id).toBe(ray);
  return { ray, hint };
}

async function zoneWith(retryHints: "published" | "agent"): Promise<string> {
  const zone = uniqueZone(`preview-hints-${retryHints}`);
  await putZone(zone, { origin: loopback(ports.closed), retry_hints: retryHints });
  return zone;
}

/** A described refused origin: 521, whose published hint is 120 s. */
const REFUSED = { path: "/checkout", headers: { Accept: "application/json" }, origin: { failure: "refused" } };

describe("the draft preview's retry hints follow the zone's profile", () => {
  it("agent: every answer (the described request's and each format's) sends the profile's hint for its Ray ID", async () => {
    const zone = await zoneWith("agent");
    const seen = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const preview = (await apiOk<Preview>("POST", `/zones/${zone}/preview`, { request: REFUSED })).result;
      for (const shown of [preview.response, ...Object.values(preview.responses)]) {
        expect(shown.status).toBe(521);
        const { ray, hint } = hintOf(shown);
        expect(hint, `ray ${ray}`).toBe(predicted(120, ray));
        expect(hint).toBeLessThanOrEqual(59);
        seen.add(hint);
      }
    }
    // Twenty answers spread over the window, not one value.
    expect(seen.size).toBeGreaterThan(1);
  });

  it("agent: a draft rule's answer carries the same hint headers, keyed by its Ray ID", async () => {
    const zone = await zoneWith("agent");
    const draft = {
      rules: [
        {
          expression: "http.response.code eq 521",
          action: "serve_error",
          action_parameters: { content: '{"down":true}', content_type: "application/json" },
        },
      ],
    };
    const preview = (await apiOk<Preview>("POST", `/zones/${zone}/preview`, { request: REFUSED, draft })).result;
    const shown = preview.response;
    expect(shown.answered_by.kind).toBe("rule");
    const ray = shown.headers["ray-id"] ?? "";
    const hint = Number(shown.headers["retry-after"]);
    expect(hint).toBe(predicted(120, ray));
    expect(shown.headers["retry-after-ms"]).toBe(String(hint * 1000));
  });

  it("published: the catalog's hint exactly", async () => {
    const zone = await zoneWith("published");
    const preview = (await apiOk<Preview>("POST", `/zones/${zone}/preview`, { request: REFUSED })).result;
    for (const shown of [preview.response, ...Object.values(preview.responses)]) expect(hintOf(shown).hint).toBe(120);
  });
});
