/**
 * `npm run dev`'s relay of wrangler's output (scripts/relay.mjs), fed in chunks as a pipe delivers them, on a fake
 * clock: a Worker log block becomes one line per log line however its chunks are cut and however long apart they
 * come (a loaded machine once split a block's first line for more than the 100 ms a prompt is held, and its blank
 * line escaped the block); a prompt without its newline is still written after 100 ms.
 */
import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { relay } from "../../scripts/relay.mjs";

const BLOCK =
  '▲ [WARNING] {"event":"edge_error","ray":"a1","code":520}\n\n  {"event":"edge_error","ray":"a2","code":520}\n\n';

/** The relay over a pipe: `send` writes chunks, each `wait` ms after the one before on the fake clock. */
function relayed() {
  const input = new PassThrough();
  let output = "";
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString();
      done();
    },
  });
  relay(input, out, () => true);
  // A chunk's `data` event comes on a later turn; setImmediate is not faked.
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    async send(chunks: readonly { readonly text: string; readonly wait: number }[]): Promise<string> {
      for (const { text, wait } of chunks) {
        await vi.advanceTimersByTimeAsync(wait);
        input.write(text);
        await turn();
      }
      input.end();
      await turn();
      await vi.advanceTimersByTimeAsync(200);
      return output;
    },
  };
}

describe("npm run dev relays a Worker log block as one line per log line", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
  afterEach(() => vi.useRealTimers());

  const EXPECTED =
    '▲ [WARNING] {"event":"edge_error","ray":"a1","code":520}\n▲ [WARNING] {"event":"edge_error","ray":"a2","code":520}\n';

  it("in one chunk", async () => {
    expect(await relayed().send([{ text: BLOCK, wait: 0 }])).toBe(EXPECTED);
  });

  it.each([5, 20, 60, 61])("cut after %i characters, the rest 500 ms later", async (at) => {
    const output = await relayed().send([
      { text: BLOCK.slice(0, at), wait: 0 },
      { text: BLOCK.slice(at), wait: 500 },
    ]);
    expect(output).toBe(EXPECTED);
  });

  it("a line after the block passes as it is", async () => {
    const output = await relayed().send([
      { text: BLOCK.slice(0, 20), wait: 0 },
      { text: `${BLOCK.slice(20)}[wrangler:info] GET /drop 520\n`, wait: 500 },
    ]);
    expect(output).toBe(`${EXPECTED}[wrangler:info] GET /drop 520\n`);
  });

  // As wrangler writes it with colours on (FORCE_COLOR): the marker's codes before `▲`, the message bold.
  const COLOURED = BLOCK.replace("▲ [WARNING] ", "\x1b[33m▲ \x1b[43;33m[\x1b[43;30mWARNING\x1b[43;33m]\x1b[0m \x1b[1m");
  const plain = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

  it.each([1, 2, 3, 4, 5, 6])(
    "coloured, cut after %i characters (inside or after its first colour code)",
    async (at) => {
      const output = await relayed().send([
        { text: COLOURED.slice(0, at), wait: 0 },
        { text: COLOURED.slice(at), wait: 500 },
      ]);
      expect(plain(output)).toBe(EXPECTED);
    },
  );

  it("a prompt without its newline is written after 100 ms", async () => {
    const input = new PassThrough();
    let output = "";
    relay(
      input,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          output += chunk.toString();
          done();
        },
      }),
      () => true,
    );
    input.write("Continue? ");
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(99);
    expect(output).toBe("");
    await vi.advanceTimersByTimeAsync(2);
    expect(output).toBe("Continue? ");
  });
});
