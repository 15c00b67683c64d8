/**
 * Localised answers (docs/languages.md): `parse` of the real Worker's answers in German and Japanese, as JSON,
 * Markdown and the HTML page, gives the same machine fields as the English answer; only the prose (`title`, `detail`,
 * `what_you_should_do`, `footer`) is in the asked language; links are compared by their targets. The Ray ID and the time differ per
 * answer and are set aside.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, type EdgeError } from "../src/index.js";
import { startWorker, type TestWorker } from "./support/worker.js";

const PROSE = ["title", "detail", "what_you_should_do", "footer"] as const;

/** The parsed answer without what is per answer (Ray ID, time) or per language (the prose). */
function machine(e: EdgeError | null): unknown {
  expect(e).not.toBeNull();
  const { rayId: _ray, fields, ...rest } = e as EdgeError;
  const kept: Record<string, unknown> = { ...fields };
  for (const name of [...PROSE, "ray_id", "timestamp"]) delete kept[name];
  const ray = (e as EdgeError).rayId ?? "";
  if (typeof kept.instance === "string") kept.instance = kept.instance.replace(ray, "RAY");
  if (Array.isArray(kept.links)) kept.links = (kept.links as { href: string }[]).map((l) => l.href);
  return { ...rest, fields: kept };
}

describe("localised answers read as the English ones", () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await startWorker();
  }, 120_000);
  afterAll(() => worker?.dispose());

  const ask = (code: number, accept: string, language: string) =>
    fetch(`${worker.base}/cdn-cgi/error/${code}`, { headers: { Accept: accept, "Accept-Language": language } });

  it.each([
    ["application/json", 521],
    ["application/json", 1015],
    ["text/markdown", 524],
    ["text/markdown", 1020],
    ["text/html", 522],
  ] as const)("%s, %i: German and Japanese give the English machine fields", async (accept, code) => {
    const english = await ask(code, accept, "en");
    expect(english.headers.get("Content-Language")).toBe("en");
    const expected = machine(await parse(english));
    for (const language of ["de", "ja"]) {
      const res = await ask(code, accept, `${language}, en;q=0.5`);
      expect(res.headers.get("Content-Language")).toBe(language);
      const read = await parse(res);
      expect(machine(read), language).toEqual(expected);
      // The prose is the asked language's own, not the English.
      const englishTitle = (await parse(await ask(code, accept, "en")))?.fields.title;
      expect(read?.fields.title, language).not.toBe(englishTitle);
    }
  });
});
