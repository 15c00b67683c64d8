/**
 * The Markdown body of an overlaid error (src/errors/render-markdown.ts `renderMarkdownOverlaid`; docs/custom-errors.md
 * "Overlay"): whatever text an overlay holds, the body's block structure is the service's own: its title, its two
 * sections (and "More Help" with links), one thematic break, then the footer. Generated texts built from every
 * character that can open a block, at every position a block can open.
 */
import { describe, expect, it } from "vitest";
import { catalogEntry } from "../../../src/errors/catalog";
import { errorFields } from "../../../src/errors/fields";
import { renderMarkdownOverlaid } from "../../../src/errors/render-markdown";
import { blockStructure } from "../support/markdown";

const entry = catalogEntry(521)!;
const base = errorFields(entry, {
  type: "https://shop.example/cdn-cgi/errors/521",
  rayId: "0123456789abcdef",
  timestamp: "2026-11-26T00:00:00Z",
  zone: "shop.example",
  retryAfter: entry.retryAfter,
  footer: "Served by the edge.",
  reachedOrigin: false,
});

function body(detail: string, guidance: string, links = false): string {
  const text = renderMarkdownOverlaid(
    { ...base, detail, what_you_should_do: guidance },
    links ? [{ title: "# Status\n", href: "https://status.example/" }] : undefined,
  );
  return text.slice(text.indexOf("\n---\n", 3) + 5);
}

const EXPECTED = (links: boolean) => ({
  headings: [`# ${base.title}`, "## What Happened", "## What You Should Do", ...(links ? ["## More Help"] : [])],
  breaks: 1,
  fences: 0,
  underlines: 0,
});

/** Pieces a line can be made of: block openers, container markers, spaces, text, emphasis. */
const PIECES = [
  "#",
  "## ",
  "-",
  "- ",
  "*",
  "* ",
  "_",
  "=",
  "==",
  "~~~",
  "```",
  "1. ",
  "2) ",
  ">",
  " ",
  "   ",
  "a",
  "**b**",
];

/** A deterministic generator (xorshift), so a failure names a text that can be replayed. */
function* texts(count: number, seed = 0x2545f491): Generator<string> {
  let state = seed;
  const next = (n: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  for (let i = 0; i < count; i++) {
    const lines = Array.from({ length: 1 + next(6) }, () =>
      Array.from({ length: 1 + next(4) }, () => PIECES[next(PIECES.length)]).join(""),
    );
    yield lines.join(next(3) === 0 ? "\n\n" : "\n");
  }
}

describe("renderMarkdownOverlaid: overlay text opens no block of its own", () => {
  it("5,000 generated texts in both sections: the service's headings, one break, the footer after it", () => {
    const detailTexts = [...texts(5000, 0x1234567)];
    const guidanceTexts = [...texts(5000, 0x7654321)];
    for (let i = 0; i < detailTexts.length; i++) {
      const detail = detailTexts[i]!;
      const guidance = guidanceTexts[i]!;
      const links = i % 2 === 0;
      const md = body(detail, guidance, links);
      expect(blockStructure(md), JSON.stringify({ detail, guidance })).toEqual(EXPECTED(links));
      expect(md.endsWith("\n---\n\nServed by the edge.\n"), JSON.stringify({ detail, guidance })).toBe(true);
    }
  });

  it("lists, bold and emphasis are written as the operator wrote them", () => {
    const guidance = "1. Wait a minute.\n2. Check **our status page**.\n\n- *soon*\n- _later_\n+ plus\n3) paren";
    expect(body("Plain *text*.", guidance)).toContain(`## What You Should Do\n\n${guidance}\n\n---`);
    expect(body("Plain *text*.", guidance)).toContain("## What Happened\n\nPlain *text*.\n\n");
  });

  it("each kind of block opener is kept as text, its first character escaped", () => {
    const cases: [string, string][] = [
      ["# h", "\\# h"],
      ["   ###### h", "   \\###### h"],
      ["#hashtag", "\\#hashtag"],
      ["---", "\\---"],
      ["- - -", "\\- - -"],
      ["* * *", "\\* * *"],
      ["___", "\\___"],
      ["===", "\\==="],
      ["-", "\\-"],
      ["~~~ js", "\\~~~ js"],
      ["- # h", "- \\# h"],
      ["1. - ***", "1. - \\***"],
      ["> # h", "\\> # h"],
      ["text ## not a heading", "text ## not a heading"],
      ["**bold** line", "**bold** line"],
    ];
    for (const [text, written] of cases) expect(body(text, "x"), text).toContain(`## What Happened\n\n${written}\n\n`);
  });
});
