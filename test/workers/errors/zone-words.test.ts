/**
 * Texts that name a zone's own setting say the zone's value (docs/errors.md "Words"): the 524 detail names the
 * zone's `read_timeout`, not the published 120 s, in every format, through zone traffic against a real origin that
 * never answers, and on the zone's `/cdn-cgi/error/524`.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, putZone, sendTraffic, uniqueZone } from "../support/origin";

async function hangingZone(readTimeout: number): Promise<string> {
  const zone = uniqueZone("read-window");
  await putZone(zone, { origin: loopback(ports.raw), connect_timeout: 0.3, read_timeout: readTimeout });
  return zone;
}

describe("524 names the zone's read timeout", () => {
  it("two zones with different read timeouts, JSON and Markdown: each says its own window", async () => {
    for (const seconds of [0.5, 0.6]) {
      const zone = await hangingZone(seconds);
      const json = await sendTraffic(`http://${zone}/hang`, { Accept: "application/json" });
      expect(json.status).toBe(524);
      const body = await json.json<{ detail: string }>();
      expect(body.detail).toContain(`within the ${seconds}-second Proxy Read Timeout window`);
      expect(body.detail).not.toContain("120-second");
      const md = await sendTraffic(`http://${zone}/hang`, { Accept: "text/markdown" });
      expect(md.status).toBe(524);
      const text = await md.text();
      expect(text).toContain(`${seconds}-second Proxy Read Timeout window`);
      expect(text).not.toContain("120-second");
    }
  });

  it("a zone without read_timeout says the default 100 s on its /cdn-cgi/error/524 (HTML too)", async () => {
    const zone = uniqueZone("read-window-default");
    await putZone(zone, { origin: loopback(ports.raw) });
    const json = await exports.default.fetch(`http://${zone}/cdn-cgi/error/524`, {
      headers: { Accept: "application/json" },
    });
    expect((await json.json<{ detail: string }>()).detail).toContain("within the 100-second Proxy Read Timeout");
    const html = await exports.default.fetch(`http://${zone}/cdn-cgi/error/524`, { headers: { Accept: "text/html" } });
    const page = await html.text();
    expect(page).toContain("100-second Proxy Read Timeout");
    expect(page).not.toContain("120-second");
  });
});
