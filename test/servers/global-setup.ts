/**
 * vitest globalSetup: starts the test origins on 127.0.0.1 once per run and hands their ports to the tests
 * (`inject("originPorts")`). Nothing here ever listens on or connects to anything but loopback.
 */
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";
import type { OriginPorts } from "./context.ts";
import { startHttpOrigin } from "./http-origin.ts";
import { startRawOrigin } from "./raw-origin.ts";
import { startStreamOrigin } from "./stream-origin.ts";
import { startSwitchboard } from "./switch-origin.ts";
import { startTlsOrigin } from "./tls-origin.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";
import { startOtlpReceiver } from "./otlp-receiver.ts";

/**
 * A loopback port on which nothing listens, so connecting to it is refused. Chosen below the kernel's ephemeral
 * range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 here): a port the kernel handed out and we closed
 * could be handed out again to a later `listen(0)` — once it went to workerd's own socket, and the "refused" origin
 * answered as the Worker itself (1003). Ports below the range are only ever taken by an explicit bind.
 */
async function closedPort(): Promise<number> {
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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [http, raw, tls, stream, webhook, otlp, switchboard] = await Promise.all([
    startHttpOrigin(),
    startRawOrigin(),
    startTlsOrigin(),
    startStreamOrigin(),
    startWebhookReceiver(),
    startOtlpReceiver(),
    startSwitchboard(),
  ]);
  const closed = await closedPort();
  const ports: OriginPorts = {
    http: http.port,
    raw: raw.port,
    tls: tls.port,
    stream: stream.port,
    closed,
    webhook: webhook.port,
    otlp: otlp.port,
    switchboard: switchboard.port,
  };
  project.provide("originPorts", ports);
  return async () => {
    for (const { server } of [http, tls, webhook, otlp]) server.closeAllConnections();
    await Promise.all(
      [http, raw, tls, stream, webhook, otlp, switchboard].map(
        ({ server }) => new Promise<void>((r) => server.close(() => r())),
      ),
    );
  };
}
