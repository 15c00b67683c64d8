/**
 * Words that agree with the fields (docs/errors.md "Words"): for EVERY catalog code, in every format the Worker
 * answers (JSON, Markdown, HTML), the guidance and the sentences around it say what `retryable`, `retry_after` and
 * `owner_action_required` say: no retry wording on a code that is not retryable, no "the owner must fix" on a code
 * that needs no owner action or is the owner's own block, and every wait named in the text equal to the wait
 * actually sent (Retry-After), a dynamic one included: the catalog's wait through the real Worker's
 * `/cdn-cgi/error/{code}`, dynamic waits of every retryable code through the pipeline, and a real rate-limiting
 * rule's 1015 through zone traffic. Also the titles: published ones verbatim, the project's own in sentence case.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import provenanceSidecar from "../../../fixtures/catalog-provenance.json";
import { CATALOG, type CatalogEntry } from "../../../src/errors/catalog";
import { errorResponse } from "../../../src/errors/pipeline";
import { guidanceForWait } from "../../../src/errors/wording";
import { parseSettings } from "../../../src/shared/settings";
import { loopback, ports, putZone, uniqueZone } from "../support/origin";
import { apiOk } from "../support/envelope";

type Format = "json" | "markdown" | "html";
const ACCEPT: Readonly<Record<Format, string>> = {
  json: "application/json",
  markdown: "text/markdown",
  html: "text/html",
};
const FORMATS = Object.keys(ACCEPT) as Format[];

/** What a response says, read back by format-specific means (JSON, the YAML frontmatter, the page's island). */
interface Said {
  readonly retryable: boolean;
  readonly retry_after: number | undefined;
  readonly owner_action_required: boolean;
  /** The Retry-After header; `undefined` where there is none to compare (a reference page documents the code). */
  readonly header: string | null | undefined;
  /** Every text a reader of this format reads about what to do and who acts. */
  readonly texts: readonly string[];
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};
/** The visible text of an HTML fragment: tags dropped, the template's entities decoded, spaces collapsed. */
const textOf = (fragment: string): string =>
  fragment
    .replace(/<[^>]*>/g, " ")
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e)
    .replace(/\s+/g, " ")
    .trim();

async function said(res: Response, format: Format): Promise<Said> {
  const header = res.headers.get("Retry-After");
  const body = await res.text();
  switch (format) {
    case "json": {
      const f = JSON.parse(body) as Record<string, unknown>;
      return {
        retryable: f.retryable as boolean,
        retry_after: f.retry_after as number | undefined,
        owner_action_required: f.owner_action_required as boolean,
        header,
        texts: [f.what_you_should_do as string],
      };
    }
    case "markdown": {
      const [, front = "", rest = ""] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(body) ?? [];
      const f = parse(front) as Record<string, unknown>;
      const section = /## What You Should Do\n\n([\s\S]*?)\n\n---\n/.exec(rest)?.[1];
      expect(section, "the Markdown body's guidance section").toBe(f.what_you_should_do);
      return {
        retryable: f.retryable as boolean,
        retry_after: f.retry_after as number | undefined,
        owner_action_required: f.owner_action_required as boolean,
        header,
        texts: [f.what_you_should_do as string, section ?? ""],
      };
    }
    case "html": {
      const island = /<script type="application\/problem\+json" id="edge-error">([\s\S]*?)<\/script>/.exec(body)?.[1];
      const f = JSON.parse(island ?? "null") as Record<string, unknown>;
      // What a person reads: the "What happened" card's last paragraph (who acts) and the whole "What you can do"
      // card (the guidance and the retry note).
      const happened = /<h2 id="what-happened">What happened<\/h2>([\s\S]*?)<\/section>/.exec(body)?.[1] ?? "";
      const owner = [...happened.matchAll(/<p>([\s\S]*?)<\/p>/g)].at(-1)?.[1] ?? "";
      const todo = /<h2 id="what-to-do">What you can do<\/h2>([\s\S]*?)<\/section>/.exec(body)?.[1] ?? "";
      expect(textOf(todo).length, "the page's guidance card").toBeGreaterThan(0);
      return {
        retryable: f.retryable as boolean,
        retry_after: f.retry_after as number | undefined,
        owner_action_required: f.owner_action_required as boolean,
        header,
        texts: [textOf(owner), textOf(todo)],
      };
    }
  }
}

const INVITES_RETRY = /\b(?:wait and retry|try again|retry (?:with|after|in|later)|back off|check back)\b/i;
const OWNER_MUST = /\b(?:owner|operator)(?:'s)?\s+(?:must|should|needs to|has to)\b|\bneeds to fix\b|\bowner fixes\b/i;
const FIX = /\bfix/i;
const WAIT = /\b(\d+) seconds?\b/g;

/** The checks of docs/errors.md "Words", on every text of one response. */
function expectConsistent(s: Said, entry: CatalogEntry, where: string): void {
  const all = s.texts.join("\n");
  const guidance = s.texts.filter((t) => /Wait and retry|Do not retry/.test(t));
  expect(guidance.length, `${where}: the guidance is there`).toBeGreaterThan(0);
  expect(s.owner_action_required, where).toBe(entry.ownerActionRequired);
  if (s.retryable) {
    expect(s.retry_after, `${where}: retry_after`).toBeGreaterThan(0);
    if (s.header !== undefined) expect(s.header, `${where}: Retry-After = retry_after`).toBe(String(s.retry_after));
    for (const t of guidance) expect(t, `${where}: leads with waiting`).toMatch(/^(?:\*\*)?Wait and retry/);
    const waits = [...all.matchAll(WAIT)].map((m) => Number(m[1]));
    expect(waits.length, `${where}: the text names the wait`).toBeGreaterThan(0);
    expect(new Set(waits), `${where}: every wait in the text is the one sent`).toEqual(new Set([s.retry_after]));
    if (s.retry_after === 1) expect(all, `${where}: one second`).not.toMatch(/\b1 seconds\b/);
    // The wait is the one sent, not a schedule of the client's own: no doubling (the client package waits the hint).
    expect(all, `${where}: no doubling of the wait`).not.toMatch(/\bdouble\b|exponential/i);
  } else {
    expect(s.retry_after, `${where}: no retry_after`).toBeUndefined();
    if (s.header !== undefined) expect(s.header, `${where}: no Retry-After`).toBeNull();
    for (const t of guidance) expect(t, `${where}: leads with not retrying`).toMatch(/^(?:\*\*)?Do not retry/);
    expect(all, `${where}: no retry wording`).not.toMatch(INVITES_RETRY);
    expect(all, `${where}: no wait named`).not.toMatch(WAIT);
  }
  if (!s.owner_action_required) expect(all, `${where}: no owner action asked`).not.toMatch(OWNER_MUST);
  // An intentional block is the owner's choice, not a fault of theirs to fix.
  if (/\bintentional\b/i.test(all) || (entry.category === "access_denied" && entry.ownerActionRequired))
    expect(all, `${where}: a block is not the owner's to fix`).not.toMatch(FIX);
}

const fetchError = (code: number, format: Format): Promise<Response> =>
  exports.default.fetch(`http://localhost/cdn-cgi/error/${code}`, { headers: { Accept: ACCEPT[format] } });

describe("every code's words agree with its fields, in every format", () => {
  it.each(CATALOG.map((e) => [e.code, e] as const))(
    "%i, the catalog's wait (the Worker's /cdn-cgi/error)",
    async (code, entry) => {
      for (const format of FORMATS) {
        const s = await said(await fetchError(code, format), format);
        expect(s.retry_after, `${code} ${format}`).toBe(entry.retryAfter ?? undefined);
        expectConsistent(s, entry, `${code} ${format}`);
      }
    },
  );

  const settings = parseSettings({});
  const retryable = CATALOG.filter((e) => e.retryAfter !== null);
  it.each(retryable.flatMap((e) => [1, 20, 7200].map((wait) => [e.code, wait, e] as const)))(
    "%i with a dynamic Retry-After of %i s (the pipeline)",
    async (code, wait, entry) => {
      for (const format of FORMATS) {
        const request = new Request("https://shop.example/x", { headers: { Accept: ACCEPT[format] } });
        const res = (await errorResponse({ code, request, retryAfter: wait }, { settings, zone: "shop.example" }))
          .response;
        const s = await said(res, format);
        expect(s.retry_after, `${code} ${format}`).toBe(wait);
        expectConsistent(s, entry, `${code} ${format} ${wait}s`);
      }
    },
  );
});

describe("the reference page of every code says the same (/cdn-cgi/errors/{code})", () => {
  it.each(CATALOG.map((e) => [e.code, e] as const))("%i", async (code, entry) => {
    const url = `http://localhost/cdn-cgi/errors/${code}`;
    const json = await (
      await exports.default.fetch(url, { headers: { Accept: "application/json" } })
    ).json<Record<string, unknown>>();
    const page = await (await exports.default.fetch(url, { headers: { Accept: "text/html" } })).text();
    const glance = /<h2 id="glance">At a glance<\/h2>([\s\S]*?)<\/section>/.exec(page)?.[1] ?? "";
    const rows = [...glance.matchAll(/<dt>(Retry|Owner action)<\/dt><dd>([\s\S]*?)<\/dd>/g)].map((m) => textOf(m[2]!));
    expect(rows.length, `${code}: Retry and Owner action rows`).toBe(2);
    const todo = /<h2 id="what-to-do">What to do<\/h2>([\s\S]*?)<\/section>/.exec(page)?.[1] ?? "";
    const s: Said = {
      retryable: json.retryable as boolean,
      retry_after: json.retry_after as number | undefined,
      owner_action_required: json.owner_action_required as boolean,
      header: undefined,
      // The Retry row names Retry-After as a header name, not a wait: only its sentence before the parenthesis.
      texts: [textOf(todo), ...rows.map((r) => r.replace(/\s*\(Retry-After:[^)]*\)/, ""))],
    };
    expect(s.retry_after).toBe(entry.retryAfter ?? undefined);
    expectConsistent(s, entry, `${code} reference`);
  });
});

describe("a rate-limiting rule's own wait (1015 through zone traffic)", () => {
  it("a 20-second block says 20 seconds, and backs off from 20, in every format", async () => {
    const zone = uniqueZone("words");
    await putZone(zone, { plan: "pro", origin: loopback(ports.http) });
    const rule = {
      expression: 'http.request.uri.path eq "/login"',
      action: "block",
      ratelimit: { characteristics: ["ip.src"], period: 10, requests_per_period: 1, mitigation_timeout: 20 },
    };
    await apiOk("PUT", `/zones/${zone}/rulesets/phases/http_ratelimit/entrypoint`, { rules: [rule] });
    const send = (format: Format) =>
      exports.default.fetch(`http://${zone}/login`, {
        headers: { Accept: ACCEPT[format], "CF-Connecting-IP": "192.0.2.20" },
      });
    const first = await send("json");
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const entry = CATALOG.find((e) => e.code === 1015)!;
    for (const format of FORMATS) {
      const res = await send(format);
      expect(res.status).toBe(429);
      const s = await said(res, format);
      // The block's end is fixed; a second may pass between the requests.
      expect(s.retry_after, format).toBeGreaterThanOrEqual(19);
      expect(s.retry_after, format).toBeLessThanOrEqual(20);
      expectConsistent(s, entry, `1015 ${format} (rule)`);
      const text = s.texts.join("\n");
      expect(text).toContain(`Wait ${s.retry_after} seconds before your next request`);
      expect(text).toContain("wait as long as that answer's Retry-After says");
    }
  });
});

describe("guidanceForWait", () => {
  const text = CATALOG.find((e) => e.code === 1015)!.whatYouShouldDo;
  it("says the 1015 text for the catalog's 30 seconds, unchanged", () => {
    expect(guidanceForWait(text, 30, 30)).toBe(text);
  });
  it("recomputes every wait for another wait; one second is singular; no doubling is advised", () => {
    expect(guidanceForWait(text, 30, 20)).toBe(
      "**Wait and retry.** This block is transient. Wait at least 20 seconds, then retry.\n\n" +
        "Recommended approach:\n1. Wait 20 seconds before your next request\n" +
        "2. If rate-limited again, wait as long as that answer's Retry-After says: it is the time left until the block ends\n" +
        "3. If rate-limiting persists after 5 retries, stop and reassess your request pattern",
    );
    expect(guidanceForWait(text, 30, 1)).toContain("Wait at least 1 second, then");
  });
  it("leaves numbers that are not the catalog's wait alone", () => {
    expect(guidanceForWait("Wait 30 seconds, not 45 seconds.", 30, 10)).toBe("Wait 10 seconds, not 45 seconds.");
  });
});

/** The provenance sidecar (fixtures/catalog-provenance.json): which values are the published ones. */
interface Provenance {
  readonly published: readonly string[];
  readonly adapted?: Readonly<Record<string, { readonly published: string | number | boolean; readonly why: string }>>;
}
const PROVENANCE = provenanceSidecar as unknown as Readonly<Record<string, Provenance>>;

/** A word in sentence case after the first: lower case, or an acronym as written (DNS, TLS, SNI, IP, HTTP…). */
const LATER_WORD = /^(?:[a-z0-9][a-z0-9'-]*|[A-Z0-9]{2,}s?)$/;

describe("titles: published verbatim, the project's own in one casing (sentence case)", () => {
  it.each(CATALOG.map((e) => [e.code, e] as const))("%i", (code, entry) => {
    const p = PROVENANCE[String(code)];
    const adapted = p?.adapted?.title?.published;
    // A published title is kept as published, whatever its casing ("Access Denied" for 1012, "Access denied" as
    // the live 1020 sends it); 1002 keeps the first of the two published variants the research lists.
    const published =
      p?.published.includes("title") || (typeof adapted === "string" && adapted.startsWith(entry.title));
    if (published) return;
    const words = entry.title.split(/\s+/).map((w) => w.replace(/^[(]|[),:]$/g, ""));
    expect(words[0], `${code} "${entry.title}": first word capitalised`).toMatch(/^[A-Z]/);
    for (const word of words.slice(1)) expect(word, `${code} "${entry.title}"`).toMatch(LATER_WORD);
  });

  it("titles repeat only as docs/errors.md lists: published for several codes, or own for unpublished meanings", () => {
    const byTitle = new Map<string, number[]>();
    for (const e of CATALOG) byTitle.set(e.title, [...(byTitle.get(e.title) ?? []), e.code]);
    const repeated = Object.fromEntries([...byTitle].filter(([, codes]) => codes.length > 1));
    expect(repeated).toEqual({
      "Access Denied: Your IP address has been banned": [1006, 1007, 1008, 1106],
      "Could not find host": [1018, 1023],
      "Access denied": [1009, 1010, 1020, 1107, 1108, 1109],
      "Client TLS error": [1017, 1028, 1029],
      "Zone configuration error": [1043, 1047, 1049],
      "Worker error": [1100, 1103, 1104],
      "Snippet error": [1201, 1202, 1203, 1204, 1206],
    });
    // An own repeated title is shared only by codes of one category whose detail says the meaning is unpublished.
    for (const [title, codes] of Object.entries(repeated)) {
      const own = CATALOG.filter(
        (e) => codes.includes(e.code) && !PROVENANCE[String(e.code)]?.published.includes("title"),
      );
      if (own.length === 0) continue;
      expect(new Set(own.map((e) => e.category)).size, title).toBe(1);
      for (const e of own) expect(e.detail, `${e.code}`).toContain("not published");
    }
  });

  it("the rule can fail: a title-cased own title is refused", () => {
    expect(
      "Configuration Error"
        .split(" ")
        .slice(1)
        .every((w) => LATER_WORD.test(w)),
    ).toBe(false);
  });
});
