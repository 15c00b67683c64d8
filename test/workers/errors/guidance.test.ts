/**
 * The guidance's Markdown subset (paragraphs, numbered and bulleted lists, **bold**) as escaped HTML
 * ("1. Wait 30 seconds…" rendered as pre-wrapped text before).
 */
import { describe, expect, it } from "vitest";
import { CATALOG } from "../../../src/errors/catalog";
import { guidanceBlocks, renderGuidance } from "../../../src/errors/guidance";

const render = (md: string): string => renderGuidance(md).toString();

describe("renderGuidance", () => {
  it("renders the 1015 text: bold, paragraphs and a numbered list after a paragraph line", () => {
    const text = CATALOG.find((e) => e.code === 1015)?.whatYouShouldDo ?? "";
    expect(render(text)).toBe(
      "<p><strong>Wait and retry.</strong> This block is transient. Wait at least 30 seconds, then retry.</p>\n" +
        "<p>Recommended approach:</p>\n" +
        "<ol><li>Wait 30 seconds before your next request</li>" +
        "<li>If rate-limited again, wait as long as that answer&#39;s Retry-After says: it is the time left until the block ends</li>" +
        "<li>If rate-limiting persists after 5 retries, stop and reassess your request pattern</li></ol>",
    );
  });

  it("bulleted lists with -, * and +; a blank line ends a list", () => {
    expect(render("- a\n* b\n+ c\n\nafter")).toBe("<ul><li>a</li><li>b</li><li>c</li></ul>\n<p>after</p>");
  });

  it("a list that does not start at 1 keeps its number; a switch of list kind starts a new list", () => {
    expect(render("3. c\n4. d\n- x")).toBe('<ol start="3"><li>c</li><li>d</li></ol>\n<ul><li>x</li></ul>');
  });

  it("single line breaks join a paragraph; an indented line continues a list item", () => {
    expect(render("one\ntwo\n\nthree")).toBe("<p>one two</p>\n<p>three</p>");
    expect(render("1. first\n   more\n2. second")).toBe("<ol><li>first more</li><li>second</li></ol>");
  });

  it("escapes everything else: no markup from the text, not even inside bold or list items", () => {
    const out = render('**<b>x</b>** <script>alert("1")</script>\n1. <img src=x onerror=alert(1)>\n- a & b');
    expect(out).toBe(
      "<p><strong>&lt;b&gt;x&lt;/b&gt;</strong> &lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt;</p>\n" +
        "<ol><li>&lt;img src=x onerror=alert(1)&gt;</li></ol>\n<ul><li>a &amp; b</li></ul>",
    );
  });

  it("an unmatched ** stays text; empty input renders nothing", () => {
    expect(render("a ** b")).toBe("<p>a ** b</p>");
    expect(render("")).toBe("");
    expect(guidanceBlocks("\n\n  \n")).toEqual([]);
  });

  it("every catalog text renders with balanced tags and no Markdown markers left", () => {
    for (const entry of CATALOG) {
      const out = render(entry.whatYouShouldDo);
      expect(out, String(entry.code)).not.toContain("**");
      expect(out, String(entry.code)).not.toMatch(/<p>\d+\. /);
      for (const tag of ["p", "ol", "ul", "li", "strong"]) {
        expect(out.split(`<${tag}>`).length + out.split(`<${tag} `).length - 1, `${entry.code} <${tag}>`).toBe(
          out.split(`</${tag}>`).length,
        );
      }
    }
  });
});
