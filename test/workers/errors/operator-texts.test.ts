/**
 * The operator's own texts are never translated (docs/languages.md "Custom rules and pages"), through the real
 * Worker and a real 521 (a refused port on 127.0.0.1): a custom error rule's content is served as written in every
 * language, without `Content-Language`; an overlay rule's `detail` and `what_you_should_do` stay the operator's while
 * the rest of the error speaks the request's language, which `Content-Language` names.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";

const CONTENT = '{"shop":"We are moving to a new server. Back at 14:00."}';
const DETAIL = "We are moving to a new server.";
const GUIDANCE = "Come back at 14:00, or write to help@shop.example.";

/** A zone whose origin refuses (a real 521) with a rule answering it, after the rules in `before`. */
async function zoneWith(
  actionParameters: Record<string, unknown>,
  before: readonly Record<string, unknown>[] = [],
): Promise<string> {
  const zone = uniqueZone("operator-texts");
  await putZone(zone, { plan: "pro", origin: loopback(ports.closed), connect_timeout: 2 });
  const rules = [
    ...before,
    { expression: "http.response.code eq 521", action: "serve_error", action_parameters: actionParameters },
  ];
  const put = await api("PUT", `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`, { rules });
  expect(put.status, put.text).toBe(200);
  return zone;
}

const get = (zone: string, language: string): Promise<Response> =>
  exports.default.fetch(`http://${zone}/checkout`, {
    headers: { Accept: "application/json", "Accept-Language": language },
  });

describe("the operator's texts in every language", () => {
  it("a rule's content: the same bytes for every language, no Content-Language", async () => {
    const zone = await zoneWith({ content: CONTENT, content_type: "application/json" });
    for (const language of ["en", "de", "ja", "zh-CN"]) {
      const res = await get(zone, language);
      expect(res.status, language).toBe(521);
      expect(await res.text(), language).toBe(CONTENT);
      expect(res.headers.get("Content-Language"), language).toBeNull();
    }
  });

  it("an overlay: detail and guidance as the operator wrote them, the title in the request's language", async () => {
    const zone = await zoneWith({ overlay: { detail: DETAIL, what_you_should_do: GUIDANCE } });
    const titles = new Set<string>();
    for (const language of ["en", "de", "fr", "ja"]) {
      const res = await get(zone, language);
      expect(res.status, language).toBe(521);
      expect(res.headers.get("Content-Language"), language).toBe(language);
      const body = await res.json<Record<string, unknown>>();
      expect(body.detail, language).toBe(DETAIL);
      expect(body.what_you_should_do, language).toBe(GUIDANCE);
      titles.add(String(body.title));
    }
    // Four languages, four titles: the service's own words are translated around the operator's.
    expect(titles.size).toBe(4);
  });

  it("per-language texts: a rule on the request's first language tag, before the zone's own", async () => {
    // docs/languages.md "Custom rules and pages": the Rules language sees the header as sent.
    const german = '{"shop":"Wir ziehen auf einen neuen Server um. Ab 14 Uhr wieder da."}';
    const zone = await zoneWith({ content: CONTENT, content_type: "application/json" }, [
      {
        expression:
          'http.response.code eq 521 and starts_with(lower(http.request.headers["accept-language"][0]), "de")',
        action: "serve_error",
        action_parameters: { content: german, content_type: "application/json" },
      },
    ]);
    const cases: readonly (readonly [string, string])[] = [
      ["de-DE, en;q=0.5", german],
      ["DE", german],
      ["en, de;q=0.5", CONTENT],
      ["ja", CONTENT],
    ];
    for (const [language, expected] of cases) {
      const res = await get(zone, language);
      expect(await res.text(), language).toBe(expected);
      expect(res.headers.get("Content-Language"), language).toBeNull();
    }
  });
});
