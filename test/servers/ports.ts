/** Loopback ports for tests that start real processes and servers. */
import { createServer } from "node:net";

/** A port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen({ host: "127.0.0.1", port: 0 }, done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * A loopback port on which nothing listens, so connecting to it is refused. Chosen below the kernel's ephemeral
 * range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 here): a port the kernel handed out and we closed
 * could be handed out again to a later `listen(0)` — once it went to workerd's own socket, and the "refused" origin
 * answered as the Worker itself (1003). Ports below the range are only ever taken by an explicit bind.
 */
export async function closedPort(): Promise<number> {
  for (let port = 21_000; port < 22_000; port++) {
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (!free) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
  throw new Error("no free loopback port in 21000–21999");
}
