/**
 * 50 MB bodies stream through the proxy in both directions (docs/origin.md): the first bytes reach the other
 * side before the sender has finished. The origin's control endpoints (test/servers/http-origin.ts) let the
 * test hold the sender back until it has seen the first bytes arrive; a buffering proxy would deadlock here
 * and fail on the time limit instead.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loopback, ports, zoneFor } from "../../support/origin";

const MIB = 1024 * 1024;
const TOTAL_MIB = 50;

const origin = (): string => loopback(ports.http);

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe("streaming (50 MB)", () => {
  it("response: the client reads the first MiB while the origin still holds back the other 49", async () => {
    const zone = await zoneFor("big-down", origin(), { read_timeout: 10 });
    const id = crypto.randomUUID();
    const res = await exports.default.fetch(`http://${zone}/big?id=${id}&mb=${TOTAL_MIB}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe(String(TOTAL_MIB * MIB));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await Promise.race([
      reader.read(),
      // A margin, not a measure: a buffering proxy never delivers the first MiB (the origin holds the rest back), so
      // waiting longer only delays that failure; a busy machine may take seconds to pass a healthy one along.
      new Promise<"stalled">((r) => setTimeout(() => r("stalled"), 20_000)),
    ]);
    expect(first).not.toBe("stalled");
    let received = first === "stalled" ? 0 : (first.value?.byteLength ?? 0);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThanOrEqual(MIB); // only the first MiB exists yet
    await (await fetch(`${origin()}/release?id=${id}`)).body?.cancel();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
    }
    expect(received).toBe(TOTAL_MIB * MIB);
  }, 60_000);

  it("request: the origin receives the first MiB before the client has sent the other 49", async () => {
    const zone = await zoneFor("big-up", origin(), { read_timeout: 30 });
    const id = crypto.randomUUID();
    const chunk = new Uint8Array(MIB).fill(0x62);
    let sent = 0;
    let originSawBytesEarly = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 1) {
          // Hold the rest back until the origin reports bytes: only a streaming proxy gets past this.
          originSawBytesEarly = await waitFor(async () => {
            const progress = await fetch(`${origin()}/progress?id=${id}`);
            return Number(await progress.text()) > 0;
          }, 20_000); // a margin, as above: a buffering proxy never lets the origin see a byte here
        }
        if (sent === TOTAL_MIB) return controller.close();
        controller.enqueue(chunk);
        sent += 1;
      },
    });
    const res = await exports.default.fetch(`http://${zone}/upload?id=${id}`, { method: "POST", body });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(String(TOTAL_MIB * MIB));
    expect(originSawBytesEarly).toBe(true);
  }, 60_000);
});
