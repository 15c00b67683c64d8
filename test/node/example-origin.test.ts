/**
 * The example origin's stream paths (scripts/example-origin.mjs, docs/agents.md "Streams"): `/sse` and `/ndjson`
 * send their events, then end, reset or go quiet as asked, so the edge's answers for broken streams can be tried
 * under `npm run dev`. The origin is started as `npm run dev` starts it, on a free loopback port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let child: ChildProcess;
let port = 0;

beforeAll(async () => {
  child = spawn(process.execPath, [resolve(import.meta.dirname, "../../scripts/example-origin.mjs"), "--port", "0"]);
  port = await new Promise<number>((done, fail) => {
    child.stdout?.once("data", (chunk: Buffer) => done(Number(/:(\d+)/.exec(chunk.toString())?.[1])));
    child.once("error", fail);
  });
}, 30_000);

afterAll(() => {
  child?.kill("SIGTERM");
});

/** The body as far as it came, and how it ended: `end` (clean) or `reset`. */
function read(path: string): Promise<{ type: string | undefined; body: string; ended: "end" | "reset" }> {
  return new Promise((done, fail) => {
    let type: string | undefined;
    let body = "";
    let answered = false;
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      answered = true;
      type = res.headers["content-type"];
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => done({ type: res.headers["content-type"], body, ended: "end" }));
      res.on("error", () => done({ type: res.headers["content-type"], body, ended: "reset" }));
      res.on("aborted", () => done({ type: res.headers["content-type"], body, ended: "reset" }));
    });
    // A reset after the headers surfaces on the request in Node.
    req.on("error", (e) => (answered ? done({ type, body, ended: "reset" }) : fail(e)));
    req.end();
  });
}

describe("scripts/example-origin.mjs streams", () => {
  it("/sse: N events, then a clean end", async () => {
    const got = await read("/sse?n=2&ms=10");
    expect(got).toEqual({
      type: "text/event-stream",
      body: 'event: message\ndata: {"n":1}\n\nevent: message\ndata: {"n":2}\n\n',
      ended: "end",
    });
  });

  it("/ndjson?then=reset: the lines, then a reset", async () => {
    const got = await read("/ndjson?n=2&ms=10&then=reset");
    expect(got).toEqual({ type: "application/x-ndjson", body: '{"n":1}\n{"n":2}\n', ended: "reset" });
  });
});
