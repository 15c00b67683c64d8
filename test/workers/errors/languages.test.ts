/**
 * The prose in the request's language (docs/languages.md), through the real Worker's `/cdn-cgi/error/{code}`: for
 * EVERY catalog code, every language and every format, the machine fields are byte-identical to English (same
 * value, same JSON serialisation), every header but `Content-Language` and the per-request ones is identical, the
 * prose is the language's own, and `Content-Language` names it; `Accept-Language` falls back to English for unknown
 * languages and `*`. Also a dynamic wait said in the language, and the reference pages.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CATALOG } from "../../../src/errors/catalog";
import { LANGUAGES, type Language } from "../../../src/errors/language";
import { EN_WORDS } from "../../../src/errors/languages/en";
import { translatedCodes, wordsOf } from "../../../src/errors/localize";
import { errorResponse } from "../../../src/errors/pipeline";
import worker from "../../../src/index";
import { escapeHtml } from "../../../src/shared/html-escape";
import { parseSettings } from "../../../src/shared/settings";

type Format = "json" | "problem+json" | "markdown" | "html";
const ACCEPT: Readonly<Record<Format, string>> = {
  json: "application/json",
  "problem+json": "application/problem+json",
  markdown: "text/markdown",
  html: "text/html",
};
const FORMATS = Object.keys(ACCEPT) as Format[];
const TRANSLATED = LANGUAGES.filter((l): l is Exclude<Language, "en"> => l !== "en");

/** Fields no language changes (docs/languages.md "What never changes"). */
const MACHINE = [
  "type",
  "status",
  "error_code",
  "error_name",
  "error_category",
  "zone",
  "edge_error",
  "retryable",
  "retry_after",
  "owner_action_required",
  "request_reached_origin",
] as const;
/** Fields that differ between any two requests, language or not. */
const PER_REQUEST = ["instance", "ray_id", "timestamp"] as const;
/** Headers that differ between any two requests. */
const PER_REQUEST_HEADERS = new Set(["ray-id", "server-timing", "content-language"]);

interface Answer {
  readonly res: Response;
  readonly body: string;
}

/**
 * One request through the Worker's own `fetch` (src/index.ts), not the pool's `exports.default`: the pool wraps its
 * entrypoint's prototype in one more Proxy per call, so a few thousand calls in one file overflow the stack
 * (`RangeError: Maximum call stack size exceeded` in the pool's `createProxyPrototypeClass`), and this file makes
 * about 2,000.
 */
async function get(path: string, accept: string, language?: string): Promise<Answer> {
  const headers: Record<string, string> = { Accept: accept };
  if (language !== undefined) headers["Accept-Language"] = language;
  const res = await worker.fetch(new Request(`http://localhost${path}`, { headers }), env, createExecutionContext());
  return { res, body: await res.text() };
}

/** The English answers, asked once per path and format: every language is compared with the same ones. */
const english = new Map<string, Promise<Answer>>();
function getEnglish(path: string, accept: string): Promise<Answer> {
  const key = `${path} ${accept}`;
  let known = english.get(key);
  if (known === undefined) english.set(key, (known = get(path, accept)));
  return known;
}

/** The fields a format carries, read back as a client would: JSON, the YAML frontmatter, the page's island. */
function fieldsOf(format: Format, body: string): Record<string, unknown> {
  switch (format) {
    case "json":
    case "problem+json":
      return JSON.parse(body) as Record<string, unknown>;
    case "markdown":
      return parse(/^---\n([\s\S]*?)\n---\n/.exec(body)?.[1] ?? "") as Record<string, unknown>;
    case "html":
      return JSON.parse(
        /<script type="application\/problem\+json" id="edge-error">([\s\S]*?)<\/script>/.exec(body)?.[1] ?? "null",
      ) as Record<string, unknown>;
  }
}

/** The response's headers but the per-request ones, in order. */
function stableHeaders(res: Response): [string, string][] {
  return [...res.headers].filter(([name]) => !PER_REQUEST_HEADERS.has(name));
}

describe("every code × language × format: machine fields and headers as in English, the prose translated", () => {
  for (const language of TRANSLATED) {
    const words = wordsOf(language);
    it(`${language} has a text for every catalog code`, () => {
      expect(new Set(translatedCodes(language))).toEqual(new Set(CATALOG.map((e) => e.code)));
    });
    it.each(FORMATS)(
      `${language}, %s`,
      async (format) => {
        // Every code asked at once: under load one request costs ~150 ms of wall time.
        const answers = await Promise.all(
          CATALOG.map(async (entry) => {
            const path = `/cdn-cgi/error/${entry.code}`;
            return [entry, await getEnglish(path, ACCEPT[format]), await get(path, ACCEPT[format], language)] as const;
          }),
        );
        for (const [entry, en, xx] of answers) {
          const where = `${entry.code} ${language} ${format}`;
          expect(en.res.headers.get("Content-Language"), where).toBe("en");
          expect(xx.res.headers.get("Content-Language"), where).toBe(language);
          expect(xx.res.headers.get("Vary"), where).toBe("Accept, Accept-Language");
          expect(xx.res.status, where).toBe(en.res.status);
          expect(stableHeaders(xx.res), where).toEqual(stableHeaders(en.res));
          const enFields = fieldsOf(format, en.body);
          const xxFields = fieldsOf(format, xx.body);
          expect(Object.keys(xxFields), `${where}: the same members in the same order`).toEqual(Object.keys(enFields));
          for (const name of MACHINE) {
            // Byte-identical: the same JSON text of the value (absent stays absent).
            expect(JSON.stringify(xxFields[name]), `${where}: ${name}`).toBe(JSON.stringify(enFields[name]));
          }
          for (const name of PER_REQUEST) {
            if (name in enFields) expect(typeof xxFields[name], `${where}: ${name}`).toBe("string");
          }
          // The prose is the language's: every text differs from English.
          for (const name of ["title", "detail", "what_you_should_do", "footer"] as const) {
            if (!(name in enFields)) continue; // the Markdown frontmatter has no title or footer
            expect(xxFields[name], `${where}: ${name} translated`).not.toBe(enFields[name]);
          }
          if (format === "json" || format === "problem+json" || format === "html") {
            expect(String(xxFields.title), `${where}: title`).toMatch(
              new RegExp(`^${words.errorTitle(entry.code, "")}`),
            );
          }
          if (format === "markdown") {
            expect(xx.body, where).toContain(`\n## ${words.mdWhatHappened}\n\n${String(xxFields.detail)}\n\n`);
            expect(xx.body, where).toContain(`\n## ${words.mdWhatYouShouldDo}\n\n`);
            expect(xx.body, where).toContain(`\n# ${words.errorTitle(entry.code, "")}`);
          }
          if (format === "html") {
            expect(xx.body, where).toContain(`<html lang="${language}">`);
            // As the page writes them: French's apostrophes are escaped.
            expect(xx.body, where).toContain(`>${escapeHtml(words.whatHappened)}</h2>`);
            expect(xx.body, where).toContain(`>${escapeHtml(words.whatYouCanDo)}</h2>`);
            // No English label left on the page (the words that differ between the two languages).
            for (const label of [EN_WORDS.whatHappened, EN_WORDS.whatYouCanDo, EN_WORDS.timeUtc, EN_WORDS.errorName]) {
              if (label !== words[labelKey(label)]) expect(xx.body, `${where}: "${label}"`).not.toContain(`>${label}<`);
            }
          }
        }
      },
      180_000,
    );
  }
});

/** The key of an English label in `Words`. */
function labelKey(label: string): "whatHappened" | "whatYouCanDo" | "timeUtc" | "errorName" {
  const keys = ["whatHappened", "whatYouCanDo", "timeUtc", "errorName"] as const;
  return keys.find((k) => EN_WORDS[k] === label) ?? "whatHappened";
}

describe("which language: Accept-Language by RFC 4647 lookup, English by default", () => {
  const cases: readonly (readonly [string | undefined, Language])[] = [
    [undefined, "en"],
    ["*", "en"],
    ["xx", "en"],
    ["xx, *", "en"],
    ["de", "de"],
    ["DE", "de"],
    ["de-CH", "de"],
    ["de-Latn-CH-x-phonebk", "de"],
    ["en-US, de;q=0.9", "en"],
    ["xx, de;q=0.1", "de"],
    ["de;q=0.5, en;q=0.8", "en"],
    ["*, de;q=0.2", "de"],
    ["de;q=0, *", "en"],
    ["de-AT, de;q=0", "en"],
    ["de;q=2", "en"],
    ["de;q=abc, en", "en"],
    [";;, de", "de"],
    ["fr-CA", "fr"],
    ["es-419", "es"],
    ["ja-JP", "ja"],
    ["pt", "pt-BR"],
    ["pt-PT", "pt-BR"],
    ["zh", "zh-CN"],
    ["zh-Hans", "zh-CN"],
    ["zh-Hans-CN", "zh-CN"],
    ["zh-TW", "en"],
    ["zh-Hant-HK, ja;q=0.5", "ja"],
  ];
  it.each(cases)("Accept-Language %j → %s", async (header, expected) => {
    const { res } = await get("/cdn-cgi/error/522", "application/json", header);
    expect(res.headers.get("Content-Language")).toBe(expected);
  });
});

describe("a dynamic wait is said in the language", () => {
  it("a rate limit's 7 s: German guidance says 7 Sekunden", async () => {
    const scope = { settings: parseSettings({}), zone: "shop.example" };
    const request = new Request("http://shop.example/", {
      headers: { Accept: "application/json", "Accept-Language": "de" },
    });
    const res = (await errorResponse({ code: 1015, request, retryAfter: 7 }, scope)).response;
    const f = await res.json<Record<string, unknown>>();
    expect(res.headers.get("Retry-After")).toBe("7");
    expect(f.retry_after).toBe(7);
    expect(f.what_you_should_do).toContain("mindestens 7 Sekunden");
    expect(f.what_you_should_do).not.toMatch(/\b30\b/);
  });
});

describe("the reference pages in the request's language", () => {
  for (const language of TRANSLATED) {
    const words = wordsOf(language);
    it(`${language}: /cdn-cgi/errors and /cdn-cgi/errors/522, every format`, { timeout: 120_000 }, async () => {
      for (const format of FORMATS) {
        for (const path of ["/cdn-cgi/errors", "/cdn-cgi/errors/522"]) {
          const en = await get(path, ACCEPT[format]);
          const xx = await get(path, ACCEPT[format], language);
          const where = `${path} ${format}`;
          expect(xx.res.status, where).toBe(200);
          expect(xx.res.headers.get("Content-Language"), where).toBe(language);
          expect(en.res.headers.get("Content-Language"), where).toBe("en");
          expect(xx.res.headers.get("Vary"), where).toBe("Accept, Accept-Language");
          expect(xx.body, where).not.toBe(en.body);
          if (format === "json" || format === "problem+json") {
            const strip = (v: unknown): unknown =>
              Array.isArray(v) ? v.map(strip) : { ...(v as object), title: 0, detail: 0, what_you_should_do: 0 };
            expect(strip(JSON.parse(xx.body)), where).toEqual(strip(JSON.parse(en.body)));
          }
          if (format === "html") expect(xx.body, where).toContain(`<html lang="${language}">`);
        }
      }
      const list = await get("/cdn-cgi/errors", "text/html", language);
      expect(list.body).toContain(`<h1>${escapeHtml(words.ref.errorCodes)}</h1>`);
    });
  }
});
