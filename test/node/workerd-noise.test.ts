/**
 * The quiet-by-default filter of vitest.config.ts (issue 21) drops only workerd's known entries for failures the
 * tests cause on purpose, whole; anything else is kept.
 */
import { describe, expect, it } from "vitest";
import { isWorkerdNoise } from "../../vitest.config.ts";

const STACK = "stack: /x/workerd@52008e2 /x/workerd@5200ac5";

describe("isWorkerdNoise", () => {
  it.each([
    `exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused\n${STACK}\n`,
    "uncaught exception; source = Uncaught (in promise); stack = Error: Network connection lost.\n",
    `uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: disconnected: jsg.Error: Network connection lost.\n${STACK}\n`,
    "exception = workerd/api/web-socket.c++:821: disconnected: WebSocket peer disconnected\n",
    "Using secrets defined in .dev.vars\n",
  ])("drops %j", (chunk) => {
    expect(isWorkerdNoise(chunk)).toBe(true);
  });

  it.each([
    "uncaught exception; source = Uncaught (in promise); stack = Error: internal error; reference = abc\n",
    'uncaught exception; source = Uncaught (in promise); stack = TypeError: The RPC receiver does not implement "hit".\n',
    // Two entries in one write, or an entry with more after it: kept whole.
    `exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection refused\n${STACK}\nsomething else\n`,
    " FAIL  workers test/workers/x.test.ts > Network connection lost\n",
    '{"event":"edge_error","cause":"fetch failed: Network connection lost."}\n',
  ])("keeps %j", (chunk) => {
    expect(isWorkerdNoise(chunk)).toBe(false);
  });
});
