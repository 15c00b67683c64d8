/**
 * vitest globalSetup: starts the test origins on 127.0.0.1 once per run and hands their ports to the tests
 * (`inject("originPorts")`). Nothing here ever listens on or connects to anything but loopback.
 */
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";
import type { OriginPorts } from "./context.ts";
import { startHttpOrigin } from "./http-origin.ts";
import { startRawOrigin } from "./raw-origin.ts";
import { startTlsOrigin } from "./tls-origin.ts";

/** A loopback port that was free a moment ago and is now closed: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [http, raw, tls] = await Promise.all([startHttpOrigin(), startRawOrigin(), startTlsOrigin()]);
  const ports: OriginPorts = { http: http.port, raw: raw.port, tls: tls.port, closed: await closedPort() };
  project.provide("originPorts", ports);
  return async () => {
    for (const { server } of [http, tls]) server.closeAllConnections();
    await Promise.all([http, raw, tls].map(({ server }) => new Promise<void>((r) => server.close(() => r()))));
  };
}
