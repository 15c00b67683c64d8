/**
 * Custom error rules that overlay the structured error (docs/custom-errors.md, docs/differences.md; docs/custom-errors.md
 * "Overlay") through the real Worker: a real 521 (a refused port on 127.0.0.1) overlaid in every format (JSON,
 * problem+json, Markdown, HTML, HEAD) with hostile operator text, which must come out escaped in HTML and quoted in
 * YAML; every machine field and header the same as the default's; the client package's `parse` reading each
 * format; origin errors passing an overlay rule over; the written shape validated and limited.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parse as parseEdgeError } from "../../../../packages/client/src/index.js";
import { FIELD_ORDER } from "../../../../src/errors/fields";
import { loopback, ports, putZone, uniqueZone } from "../../support/origin";
import { blockStructure } from "../../support/markdown";
import { api } from "../../support/envelope";

const HOSTILE_DETAIL = '</p><script>alert("d")</script>\n---\nkey: "value" # not a comment\n&amp; ::RAY_ID::';
const HOSTILE_GUIDANCE = "**Call us** <img src=x onerror=alert(1)>\n\n1. Wait [here](javascript:alert(1))\n2. `retry`";
const LOGO =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const OVERLAY = {
  detail: HOSTILE_DETAIL,
  what_you_should_do: HOSTILE_GUIDANCE,
  links: [
    { title: 'Status <b>page</b> ]("x")', href: 'https://status.example/now?q=<script>&x="y"' },
    { title: "Support", href: "http://help.example/" },
  ],
  branding: { name: '<Acme & "Co">', logo_url: LOGO, accent_color: "#FF6600" },
};
const OVERLAY_RULE = {
  expression: "http.response.code eq 521",
  action: "serve_error",
  action_parameters: { overlay: OVERLAY },
};

const entrypoint = (zone: string): string => `/zones/${zone}/rulesets/phases/http_custom_errors/entrypoint`;

/** A zone whose origin refuses connections (a real 521), with these custom error rules. */
async function zoneWith(rules: readonly unknown[], origin = loopback(ports.closed)): Promise<string> {
  const zone = uniqueZone("overlay");
  await putZone(zone, { plan: "pro", origin, connect_timeout: 2 });
  const put = await api("PUT", entrypoint(zone), { rules });
  expect(put.status, put.text).toBe(200);
  return zone;
}

const get = (zone: string, accept: string, method = "GET", path = "/checkout"): Promise<Response> =>
  exports.default.fetch(`http://${zone}${path}`, { method, headers: { Accept: accept } });

/** The header names an error keeps whoever answers (docs/errors.md), compared between default and overlay. */
const KEPT = ["content-type", "cache-control", "vary", "x-content-type-options", "proxy-status", "retry-after"];

describe("an overlay rule answers the structured error in every format", () => {
  it("JSON: the 17 fields in their order then `links`; texts replaced; machine fields and headers the default's", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    const plain = await zoneWith([]);
    const [res, base] = await Promise.all([get(zone, "application/json"), get(plain, "application/json")]);
    const body = await res.json<Record<string, unknown>>();
    const baseBody = await base.json<Record<string, unknown>>();
    expect(res.status).toBe(521);
    expect(Object.keys(body)).toEqual([...FIELD_ORDER, "links"]);
    expect(body.detail).toBe(HOSTILE_DETAIL);
    expect(body.what_you_should_do).toBe(HOSTILE_GUIDANCE);
    expect(body.links).toEqual([
      // Stored as the URL's serialisation (what the API showed back when the rule was written).
      { title: 'Status <b>page</b> ]("x")', href: "https://status.example/now?q=%3Cscript%3E&x=%22y%22" },
      { title: "Support", href: "http://help.example/" },
    ]);
    for (const key of FIELD_ORDER) {
      if (["detail", "what_you_should_do", "ray_id", "instance", "timestamp", "zone", "type"].includes(key)) continue;
      expect(body[key], key).toEqual(baseBody[key]);
    }
    expect(body.ray_id).toBe(res.headers.get("Ray-ID"));
    for (const name of KEPT) expect(res.headers.get(name), name).toBe(base.headers.get(name));
    expect(res.headers.get("Proxy-Status")).toBe('edge-errors; error=connection_refused; details="521 origin_down"');
    expect(res.headers.get("Retry-After")).toBe(String(body.retry_after));
  });

  it("problem+json: the same bytes as JSON, only the Content-Type differs", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    const [json, problem] = await Promise.all([get(zone, "application/json"), get(zone, "application/problem+json")]);
    expect(problem.headers.get("Content-Type")).toBe("application/problem+json; charset=utf-8");
    const a = await json.json<Record<string, unknown>>();
    const b = await problem.json<Record<string, unknown>>();
    expect({ ...b, ray_id: "", instance: "", timestamp: "" }).toEqual({
      ...a,
      ray_id: "",
      instance: "",
      timestamp: "",
    });
  });

  it("Markdown: every hostile value reads back exactly through a YAML parser; the body escapes markup", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    const res = await get(zone, "text/markdown");
    expect(res.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    const text = await res.text();
    const end = text.indexOf("\n---\n", 3);
    const front = parseYaml(text.slice(4, end)) as Record<string, unknown>;
    expect(front.detail).toBe(HOSTILE_DETAIL);
    expect(front.what_you_should_do).toBe(HOSTILE_GUIDANCE);
    expect(front.links).toEqual([
      { title: 'Status <b>page</b> ]("x")', href: "https://status.example/now?q=%3Cscript%3E&x=%22y%22" },
      { title: "Support", href: "http://help.example/" },
    ]);
    expect(front.ray_id).toBe(res.headers.get("Ray-ID"));
    expect(front.error_code).toBe(521);
    const body = text.slice(end + 5);
    // No raw markup of the operator's in the body: HTML, entities, links and code spans are backslash-escaped.
    expect(body).not.toMatch(/(?<!\\)<(?:script|img|b)/);
    expect(body).toContain("\\</p\\>\\<script\\>");
    expect(body).toContain("\\[here\\](javascript:alert(1))");
    expect(body).toContain(
      '## More Help\n\n- [Status \\<b\\>page\\</b\\> \\]("x")](<https://status.example/now?q=%3Cscript%3E&x=%22y%22>)',
    );
    // The title is the frontmatter's first `# ` line after it (what clients read), and the footer is last.
    expect(/^# (.+)$/m.exec(body)?.[1]).toBe("Error 521: Web server is down");
    expect(body.trimEnd().endsWith("on behalf of the website owner.")).toBe(true);
  });

  it("HTML: hostile text escaped, the island equals the JSON body, the brand allowed by the CSP's hash only", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    const res = await get(zone, "text/html");
    expect(res.status).toBe(521);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const page = await res.text();
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).not.toContain("<b>page");
    expect(page).toContain("&lt;/p&gt;&lt;script&gt;alert(&quot;d&quot;)&lt;/script&gt;");
    expect(page).toContain("<strong>Call us</strong> &lt;img src=x onerror=alert(1)&gt;");
    expect(page).toContain(
      '<a href="https://status.example/now?q=%3Cscript%3E&amp;x=%22y%22">Status &lt;b&gt;page&lt;/b&gt; ](&quot;x&quot;)</a>',
    );
    expect(page).toContain(
      `<div class="brand"><img src="${LOGO}" alt=""><span>&lt;Acme &amp; &quot;Co&quot;&gt;</span></div>`,
    );
    expect((page.match(/<h1>/g) ?? []).length).toBe(1);
    const island = /<script type="application\/problem\+json" id="edge-error">([^<]*)<\/script>/.exec(page)?.[1];
    const fields = JSON.parse(island!) as Record<string, unknown>;
    expect(fields.detail).toBe(HOSTILE_DETAIL);
    expect(fields.links).toHaveLength(2);
    expect(Object.keys(fields)).toEqual([...FIELD_ORDER, "links"]);
    // The CSP allows exactly the page's stylesheet, the brand's (by its SHA-256), data: images and the script.
    const csp = res.headers.get("Content-Security-Policy")!;
    const styles = [...page.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(2);
    expect(styles[1]).toContain("border-bottom:4px solid #ff6600");
    const hashes = await Promise.all(styles.map(sha256Base64));
    expect(csp).toContain(`style-src 'sha256-${hashes[0]}' 'sha256-${hashes[1]}';`);
    expect(csp).toContain("img-src data:;");
    expect(csp).toMatch(/^default-src 'none';/);
    expect(res.headers.get("Proxy-Status")).toMatch(/^edge-errors; error=connection_refused;/);
  });

  it("HEAD: the same status and headers as GET (Proxy-Status, Retry-After, Content-Length), no body", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    for (const accept of ["application/json", "text/markdown", "text/html", "application/problem+json"]) {
      const [head, got] = await Promise.all([get(zone, accept, "HEAD"), get(zone, accept)]);
      const body = new Uint8Array(await got.arrayBuffer());
      expect(head.status, accept).toBe(521);
      expect(await head.text(), accept).toBe("");
      for (const name of [...KEPT, "content-security-policy"]) {
        expect(head.headers.get(name), `${accept} ${name}`).toBe(got.headers.get(name));
      }
      expect(head.headers.get("Content-Length"), accept).toBe(String(body.byteLength));
    }
  });

  it("the client's parse reads the overlaid error from every format, with the links", async () => {
    const zone = await zoneWith([OVERLAY_RULE]);
    const json = await get(zone, "application/json");
    const reference = (await parseEdgeError(json.clone()))!;
    expect(reference).toMatchObject({ source: "json", code: 521, status: 521, retryable: true, retryAfter: 120 });
    expect(reference.fields.detail).toBe(HOSTILE_DETAIL);
    expect(reference.fields.links).toHaveLength(2);
    const sources = { "application/problem+json": "json", "text/markdown": "markdown", "text/html": "html-island" };
    for (const [accept, source] of Object.entries(sources)) {
      const parsed = (await parseEdgeError(await get(zone, accept)))!;
      expect(parsed, accept).toMatchObject({
        source,
        code: 521,
        name: reference.name,
        retryable: true,
        retryAfter: 120,
        ownerActionRequired: reference.ownerActionRequired,
      });
      expect(parsed.fields.detail, accept).toBe(HOSTILE_DETAIL);
      expect(parsed.fields.what_you_should_do, accept).toBe(HOSTILE_GUIDANCE);
      expect(parsed.fields.links, accept).toEqual(reference.fields.links);
      expect(parsed.proxyStatus?.error, accept).toBe("connection_refused");
    }
    const head = (await parseEdgeError(await get(zone, "text/html", "HEAD")))!;
    expect(head).toMatchObject({ source: "proxy-status", code: 521, retryable: true, retryAfter: 120 });
  });

  it("an overlay of texts only keeps the default page's policy and adds no `links`", async () => {
    const zone = await zoneWith([
      { ...OVERLAY_RULE, action_parameters: { overlay: { detail: "Down for a moment." } } },
    ]);
    const plain = await zoneWith([]);
    const [res, base] = await Promise.all([get(zone, "text/html"), get(plain, "text/html")]);
    expect(res.headers.get("Content-Security-Policy")).toBe(base.headers.get("Content-Security-Policy"));
    const page = await res.text();
    expect(page).toContain("<p>Down for a moment.</p>");
    expect(page).not.toContain('class="brand"');
    expect(page).not.toContain("More help");
    const json = await (await get(zone, "application/json")).json<Record<string, unknown>>();
    expect(Object.keys(json)).toEqual(FIELD_ORDER);
  });

  it("the preview endpoint /cdn-cgi/error/{code} on the zone answers the overlay too", async () => {
    const zone = await zoneWith([{ ...OVERLAY_RULE, expression: "http.response.code eq 522" }]);
    const res = await get(zone, "application/json", "GET", "/cdn-cgi/error/522");
    const body = await res.json<Record<string, unknown>>();
    expect(res.status).toBe(522);
    expect(body.detail).toBe(HOSTILE_DETAIL);
  });
});

describe("overlay text cannot forge the Markdown body's structure", () => {
  /** Every block an operator could try to open, at a line start, indented, inside list items and after text. */
  const FORGED_DETAIL = [
    "Restocking",
    "===",
    "# What Happened",
    "  ## What You Should Do",
    "Pay here",
    "---",
    "- - -",
    "* * *",
    "___",
    "- # in a list",
    "1. ## numbered",
    "- ***",
    "   ### indented",
    "Foo",
    "-",
    "Bar",
    "=",
    "~~~",
    "```",
  ].join("\n");
  const FORGED_GUIDANCE = [
    "1. Wait a minute.",
    "2. Check **our status page**.",
    "",
    "- *soon*",
    "- _later_",
    "",
    "## What You Should Do",
    "",
    "Send your password to evil.example",
    "",
    "---",
    "",
    "This error was generated by the edge on behalf of the website owner.",
  ].join("\n");

  it("no heading, thematic break, underline or fence of the operator's; the lists and emphasis still render", async () => {
    const zone = await zoneWith([
      {
        ...OVERLAY_RULE,
        action_parameters: { overlay: { detail: FORGED_DETAIL, what_you_should_do: FORGED_GUIDANCE } },
      },
    ]);
    const res = await get(zone, "text/markdown");
    const text = await res.text();
    const end = text.indexOf("\n---\n", 3);
    // The frontmatter stays exact.
    const front = parseYaml(text.slice(4, end)) as Record<string, unknown>;
    expect(front.detail).toBe(FORGED_DETAIL);
    expect(front.what_you_should_do).toBe(FORGED_GUIDANCE);
    const body = text.slice(end + 5);
    const structure = blockStructure(body);
    // The service's sections, in order, and nothing else; one break, the footer's; no fence is opened.
    expect(structure).toEqual({
      headings: ["# Error 521: Web server is down", "## What Happened", "## What You Should Do"],
      breaks: 1,
      fences: 0,
      underlines: 0,
    });
    // The break is the footer's: the footer, the service's own text, is what follows it.
    const footer = body.slice(body.lastIndexOf("\n---\n") + 5).trim();
    expect(footer).toBe("This error was generated by the edge on behalf of the website owner.");
    expect(body.match(/^---$/gm)).toHaveLength(1);
    // What overlays document renders as written: numbered and bulleted lists, bold and emphasis.
    expect(body).toContain("1. Wait a minute.\n2. Check **our status page**.\n\n- *soon*\n- _later_");
    // Each forged line is still there, as text: its first character escaped.
    expect(body).toContain("Restocking\n\\===\n\\# What Happened\n  \\## What You Should Do");
    expect(body).toContain("- \\# in a list\n1. \\## numbered\n- \\***");
  });
});

describe("overlay rules and an origin's own errors", () => {
  it("are passed over: the origin's error passes through, or the next matching content rule answers", async () => {
    const origin = loopback(ports.http);
    const overlayOnly = await zoneWith([{ ...OVERLAY_RULE, expression: "http.response.code eq 503" }], origin);
    const res = await get(overlayOnly, "application/json", "GET", "/status/503-json");
    expect(res.status).toBe(503);
    expect(res.headers.get("X-Origin")).toBe("yes");
    expect(res.headers.get("Proxy-Status")).toBeNull();
    expect(await res.text()).toContain('"origin":"down for maintenance"');

    const both = await zoneWith(
      [
        { ...OVERLAY_RULE, expression: "http.response.code eq 503" },
        {
          expression: "http.response.code eq 503",
          action: "serve_error",
          action_parameters: { content: "# Down\n\nray ::RAY_ID::", content_type: "text/markdown" },
        },
      ],
      origin,
    );
    const ruled = await get(both, "application/json", "GET", "/status/503-json");
    expect(ruled.status).toBe(503);
    expect(ruled.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    expect(await ruled.text()).toBe(`# Down\n\nray ${ruled.headers.get("Ray-ID")}`);
  });
});

describe("writing overlay rules (validated and limited like the rest)", () => {
  async function refusal(parameters: unknown): Promise<string[]> {
    const zone = uniqueZone("overlay-api");
    await putZone(zone, { plan: "pro", origin: "http://o.example" });
    const res = await api("PUT", entrypoint(zone), {
      rules: [{ expression: "true", action: "serve_error", action_parameters: parameters }],
    });
    expect(res.status, res.text).toBe(400);
    const body = JSON.parse(res.text) as { errors: { code: number; message: string }[] };
    expect(body.errors.every((e) => e.code === 20021)).toBe(true);
    return body.errors.map((e) => e.message);
  }
  const p = "rules[0].action_parameters";

  it("accepts an overlay and shows it back as stored; accepts text/markdown and application/problem+json content", async () => {
    const zone = uniqueZone("overlay-api");
    await putZone(zone, { plan: "pro", origin: "http://o.example" });
    const rules = [
      OVERLAY_RULE,
      {
        expression: "true",
        action: "serve_error",
        action_parameters: { content: "# x", content_type: "text/markdown" },
      },
      {
        expression: "true",
        action: "serve_error",
        action_parameters: { content: '{"title":"x"}', content_type: "application/problem+json", status_code: 503 },
      },
    ];
    const res = await api("PUT", entrypoint(zone), { rules });
    expect(res.status, res.text).toBe(200);
    const stored = (JSON.parse(res.text) as { result: { rules: { action_parameters: unknown }[] } }).result.rules;
    expect(stored[0]!.action_parameters).toEqual({
      overlay: {
        ...OVERLAY,
        links: [
          { title: OVERLAY.links[0]!.title, href: "https://status.example/now?q=%3Cscript%3E&x=%22y%22" },
          OVERLAY.links[1],
        ],
        branding: { ...OVERLAY.branding, accent_color: "#ff6600" },
      },
    });
    expect(stored[1]!.action_parameters).toEqual(rules[1]!.action_parameters);
  });

  it("refuses content, content_type or status_code beside overlay, each by name", async () => {
    const messages = await refusal({
      overlay: { detail: "x" },
      content: "x",
      content_type: "text/html",
      status_code: 503,
    });
    expect(messages).toEqual([
      `${p}.content: cannot be used with overlay: a rule serves either fixed content or an overlay of the structured error`,
      `${p}.content_type: cannot be used with overlay: the overlaid error keeps the negotiated format`,
      `${p}.status_code: cannot be used with overlay: the overlaid error keeps its status`,
    ]);
  });

  it("refuses asset_name beside overlay, and any other key as unknown", async () => {
    const messages = await refusal({ overlay: { detail: "x" }, asset_name: "maintenance", extra: 1 });
    expect(messages).toEqual([
      `${p}.asset_name: cannot be used with overlay: a rule serves either an asset or an overlay of the structured error`,
      `${p}.extra: is not a parameter of serve_error`,
    ]);
  });

  it.each([
    ["an empty overlay", {}, `${p}.overlay: must set at least one of detail, what_you_should_do, links, branding`],
    ["not an object", "x", `${p}.overlay: must be an object {detail?, what_you_should_do?, links?, branding?}`],
    ["an unknown field", { detail: "x", html: "<b>" }, `${p}.overlay.html: is not an overlay field`],
    [
      "a control character",
      { detail: "a\u0000b" },
      `${p}.overlay.detail: must not contain control characters (a line break is allowed)`,
    ],
    [
      "a bidi override",
      { detail: "a\u2028b" },
      `${p}.overlay.detail: must not contain control characters (a line break is allowed)`,
    ],
    [
      "a lone surrogate",
      { detail: "a\ud800b" },
      `${p}.overlay.detail: must not contain control characters (a line break is allowed)`,
    ],
    ["only white space", { detail: "  \n " }, `${p}.overlay.detail: must not be only white space`],
    [
      "too long a detail",
      { detail: "x".repeat(1025) },
      `${p}.overlay.detail: must be a string of 1 to 1024 characters`,
    ],
    [
      "too long guidance",
      { what_you_should_do: "x".repeat(2049) },
      `${p}.overlay.what_you_should_do: must be a string of 1 to 2048 characters`,
    ],
    [
      "a javascript: link",
      { links: [{ title: "x", href: "javascript:alert(1)" }] },
      `${p}.overlay.links[0].href: must be an https: or http: URL`,
    ],
    [
      "a data: link",
      { links: [{ title: "x", href: "data:text/html,<b>" }] },
      `${p}.overlay.links[0].href: must be an https: or http: URL`,
    ],
    [
      "a relative link",
      { links: [{ title: "x", href: "/help" }] },
      `${p}.overlay.links[0].href: must be an absolute https: or http: URL`,
    ],
    [
      "credentials in a link",
      { links: [{ title: "x", href: "https://u:p@h.example/" }] },
      `${p}.overlay.links[0].href: must not carry a user name or password`,
    ],
    [
      "a line break in a title",
      { links: [{ title: "a\nb", href: "https://h.example/" }] },
      `${p}.overlay.links[0].title: must not contain control characters or line breaks`,
    ],
    ["a link without href", { links: [{ title: "x" }] }, `${p}.overlay.links[0].href: is required`],
    [
      "six links",
      { links: Array(6).fill({ title: "x", href: "https://h.example/" }) },
      `${p}.overlay.links: must be a list of 1 to 5 links {title, href}`,
    ],
    [
      "an external logo",
      { branding: { logo_url: "https://cdn.example/logo.png" } },
      `${p}.overlay.branding.logo_url: must be a data:image/(png|gif|jpeg|webp);base64 URI of at most 8192 characters (the page makes no external request, docs/errors.md)`,
    ],
    [
      "an SVG logo",
      { branding: { logo_url: "data:image/svg+xml;base64,PHN2Zz4=" } },
      `${p}.overlay.branding.logo_url: must be a data:image/(png|gif|jpeg|webp);base64 URI of at most 8192 characters (the page makes no external request, docs/errors.md)`,
    ],
    [
      "a CSS injection in the accent",
      { branding: { accent_color: "red;}body{display:none" } },
      `${p}.overlay.branding.accent_color: must be a colour #rrggbb`,
    ],
    [
      "an empty branding",
      { branding: {} },
      `${p}.overlay.branding: must set at least one of name, logo_url, accent_color`,
    ],
  ])("refuses %s", async (_name, overlay, message) => {
    expect(await refusal({ overlay })).toContain(message);
  });

  it("refuses the overlay on zones of the free plan like any custom error rule (403, 1100)", async () => {
    const zone = uniqueZone("overlay-api");
    await putZone(zone, { plan: "free", origin: "http://o.example" });
    const res = await api("PUT", entrypoint(zone), { rules: [OVERLAY_RULE] });
    expect(res.status).toBe(403);
    expect(res.text).toContain("1100");
  });
});

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}
