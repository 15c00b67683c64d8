/**
 * vitest globalSetup: starts the test origins on 127.0.0.1 once per run and hands their ports to the tests
 * (`inject("originPorts")`). Nothing here ever listens on or connects to anything but loopback.
 */
import { closedPort } from "./ports.ts";
import type { TestProject } from "vitest/node";
import type { OriginPorts } from "./context.ts";
import { startHttpOrigin } from "./http-origin.ts";
import { startRawOrigin } from "./raw-origin.ts";
import { startStreamOrigin } from "./stream-origin.ts";
import { startSwitchboard } from "./switch-origin.ts";
import { startTlsOrigin } from "./tls-origin.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";
import { startOtlpReceiver } from "./otlp-receiver.ts";

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
  // Node closes a keep-alive connection after 5 s idle (http.Server keepAliveTimeout), and workerd's connection pool
  // sent the next request on such a closed connection: a test whose origin sat idle longer than that (1,000 requests
  // to a closed port, then one to the healthy origin: test/workers/edge/origin/failures.test.ts) got 520 "Network
  // connection lost". The origins keep idle connections open instead (0 = no timeout); teardown closes them all.
  for (const { server } of [http, tls, webhook, otlp, switchboard]) server.keepAliveTimeout = 0;
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
    for (const { server } of [http, tls, webhook, otlp, switchboard]) server.closeAllConnections();
    await Promise.all(
      [http, raw, tls, stream, webhook, otlp, switchboard].map(
        ({ server }) => new Promise<void>((r) => server.close(() => r())),
      ),
    );
  };
}
