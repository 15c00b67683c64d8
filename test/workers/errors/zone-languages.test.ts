/**
 * A zone's `languages` (docs/languages.md "A zone's languages") through the real Worker: the list limits the
 * languages a request is matched against, its first member is the fallback, one member pins the zone; absent (or
 * reset with PATCH null): every language, English the fallback. Machine fields stay the same, and the reference
 * pages speak every language whatever a zone says.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../support/envelope";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";

async function zoneWith(languages?: readonly string[]): Promise<string> {
  const zone = uniqueZone("langs");
  await putZone(zone, { origin: loopback(ports.closed), ...(languages === undefined ? {} : { languages }) });
  return zone;
}

/** The language of the zone's 522 for this `Accept-Language`, and its machine fields. */
async function answer(zone: string, acceptLanguage?: string) {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (acceptLanguage !== undefined) headers["Accept-Language"] = acceptLanguage;
  const res = await exports.default.fetch(`http://${zone}/cdn-cgi/error/522`, { headers });
  const body = await res.json<Record<string, unknown>>();
  return { language: res.headers.get("Content-Language"), vary: res.headers.get("Vary"), body };
}

describe("a zone's languages", () => {
  it("absent: every language, English the fallback", async () => {
    const zone = await zoneWith();
    expect((await answer(zone)).language).toBe("en");
    expect((await answer(zone, "ja")).language).toBe("ja");
    expect((await answer(zone, "xx")).language).toBe("en");
  });

  it('["fr", "en"]: only those, French the fallback', async () => {
    const zone = await zoneWith(["fr", "en"]);
    const cases: readonly (readonly [string | undefined, string])[] = [
      [undefined, "fr"],
      ["*", "fr"],
      ["de", "fr"],
      ["en-GB", "en"],
      ["de, en;q=0.5", "en"],
      ["fr-CA", "fr"],
    ];
    for (const [header, expected] of cases) expect((await answer(zone, header)).language, header).toBe(expected);
  });

  it('["de"]: pinned, whatever Accept-Language says; the machine fields as in English', async () => {
    const zone = await zoneWith(["de"]);
    const other = await zoneWith();
    const english = (await answer(other, "en")).body;
    for (const header of [undefined, "en", "ja, en;q=0.9", "*"]) {
      const { language, vary, body } = await answer(zone, header);
      expect(language, header).toBe("de");
      expect(vary).toBe("Accept, Accept-Language");
      expect(String(body.title)).toMatch(/^Fehler 522: /);
      // `type` names the zone's host; the rest is the same text.
      expect(String(body.type).replace(zone, "")).toBe(String(english.type).replace(other, ""));
      for (const name of ["status", "error_code", "error_name", "retryable", "retry_after"])
        expect(JSON.stringify(body[name]), name).toBe(JSON.stringify(english[name]));
    }
  });

  it('aliases follow the list: "pt" reads pt-BR only when it is listed', async () => {
    const listed = await zoneWith(["en", "pt-BR"]);
    expect((await answer(listed, "pt-PT")).language).toBe("pt-BR");
    const unlisted = await zoneWith(["en", "es"]);
    expect((await answer(unlisted, "pt-PT, es;q=0.5")).language).toBe("es");
    expect((await answer(unlisted, "pt")).language).toBe("en");
  });

  it("zone traffic too: an origin that refuses answers in the zone's language", async () => {
    const zone = await zoneWith(["ja"]);
    const res = await exports.default.fetch(`http://${zone}/checkout`, {
      headers: { Accept: "application/json", "Accept-Language": "en" },
    });
    expect(res.status).toBe(521);
    expect(res.headers.get("Content-Language")).toBe("ja");
    await res.arrayBuffer();
  });

  it("GET answers the field; PATCH null resets it to every language", async () => {
    const zone = await zoneWith(["de", "en"]);
    const got = await api<Record<string, unknown>>("GET", `/zones/${zone}`);
    expect(got.body.result?.languages).toEqual(["de", "en"]);
    expect((await api("PATCH", `/zones/${zone}`, { languages: null })).status).toBe(200);
    const after = await api<Record<string, unknown>>("GET", `/zones/${zone}`);
    expect(after.body.result).not.toHaveProperty("languages");
    expect((await answer(zone)).language).toBe("en");
    expect((await answer(zone, "ja")).language).toBe("ja");
  });

  it("the reference pages speak every language, whatever the zone limits", async () => {
    const zone = await zoneWith(["de"]);
    const res = await exports.default.fetch(`http://${zone}/cdn-cgi/errors/522`, {
      headers: { Accept: "application/json", "Accept-Language": "fr" },
    });
    expect(res.headers.get("Content-Language")).toBe("fr");
    await res.arrayBuffer();
  });
});
