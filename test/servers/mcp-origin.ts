/**
 * An MCP server origin on 127.0.0.1, built with the official SDK (@modelcontextprotocol/sdk, Streamable HTTP,
 * stateful sessions). `stop()` closes the listening socket and every connection, so the edge meets a refused
 * connection (521), while the sessions stay in this process: `start()` again on the same port and a client's
 * session goes on where it was, as with a server restarted behind a session store.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export interface McpOrigin {
  readonly port: number;
  /** How many `tools/call` requests reached a tool. */
  readonly calls: () => number;
  readonly stop: () => Promise<void>;
  readonly start: () => Promise<void>;
}

/**
 * One SDK server per session, with three tools: `add` (numbers `a` and `b`, answers their sum as text), `sum` (the
 * same with an output schema, answering `{ sum }` as structured content) and `crash` (stops the origin 100 ms into
 * the call, after its event stream's headers, and never answers).
 */
function mcpServer(count: () => void, crash: () => void): McpServer {
  const server = new McpServer({ name: "test-origin", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => {
      count();
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  server.registerTool(
    "sum",
    {
      description: "Adds two numbers, as structured content",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    ({ a, b }) => {
      count();
      return { content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } };
    },
  );
  server.registerTool("crash", { description: "Takes the server down mid-call; never answers" }, () => {
    count();
    setTimeout(crash, 100); // after the response's headers have left
    return new Promise<never>(() => undefined);
  });
  return server;
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

export async function startMcpOrigin(): Promise<McpOrigin> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let calls = 0;
  const handler = async (req: IncomingMessage, res: import("node:http").ServerResponse): Promise<void> => {
    const body = req.method === "POST" ? await jsonBody(req) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (transport === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => void transports.set(session, created),
      });
      await mcpServer(
        () => (calls += 1),
        () => void stop(),
      ).connect(created);
      transport = created;
    }
    if (transport === undefined) {
      res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"unknown session"}');
      return;
    }
    await transport.handleRequest(req, res, body);
  };
  let server: Server | null = null;
  let port = 0;
  const start = async (): Promise<void> => {
    const next = createServer((req, res) => void handler(req, res).catch(() => res.destroy()));
    await new Promise<void>((resolve) => next.listen(port, "127.0.0.1", resolve));
    const address = next.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    port = address.port;
    server = next;
  };
  const stop = async (): Promise<void> => {
    const current = server;
    server = null;
    if (current === null) return;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await start();
  return { port, calls: () => calls, stop, start };
}
