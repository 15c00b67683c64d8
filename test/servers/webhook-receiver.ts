/**
 * A webhook receiver on 127.0.0.1 for the alert tests (docs/analytics.md "Alerts"): it keeps every request it is sent,
 * per name, and answers them as the URL asks, so a test inside workerd can read what the Worker delivered.
 *
 * | path | behaviour |
 * |---|---|
 * | `POST /hooks/{name}?fail=N` | kept (its headers and body); the first N requests of `name` answer 500, the rest 200 |
 * | `GET /received/{name}` | 200 JSON: every request kept for `name`, in order (`headers`, `body`, `answered`) |
 * | `POST /hang/{name}` | never answered: the connection stays open until the sender closes it |
 * | `GET /open/{name}` | 200 JSON `{hung, open}`: how many `/hang/{name}` requests came, how many connections are still open |
 */
import { createServer, type Server } from "node:http";
import type { ReceivedWebhook } from "./context.ts";

export async function startWebhookReceiver(): Promise<{ server: Server; port: number }> {
  const received = new Map<string, ReceivedWebhook[]>();
  const hanging = new Map<string, { hung: number; open: number }>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, kind, name = ""] = url.pathname.split("/");
    if (req.method === "GET" && kind === "received") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    if (req.method === "GET" && kind === "open") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(hanging.get(name) ?? { hung: 0, open: 0 }));
      return;
    }
    if (req.method === "POST" && kind === "hang") {
      const count = hanging.get(name) ?? { hung: 0, open: 0 };
      hanging.set(name, { hung: count.hung + 1, open: count.open + 1 });
      req.socket.once("close", () => {
        const now = hanging.get(name) ?? { hung: 0, open: 1 };
        hanging.set(name, { ...now, open: now.open - 1 });
      });
      req.resume();
      return;
    }
    if (req.method !== "POST" || kind !== "hooks") {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const list = received.get(name) ?? [];
      const answered = list.length < Number(url.searchParams.get("fail") ?? "0") ? 500 : 200;
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
      list.push({ headers, body: Buffer.concat(chunks).toString("utf8"), answered });
      received.set(name, list);
      res.writeHead(answered, { "content-type": "text/plain" }).end(answered === 200 ? "ok" : "failing on purpose");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("webhook receiver has no port");
  return { server, port: address.port };
}
