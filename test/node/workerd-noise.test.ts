/**
 * The quiet-by-default filter of vitest.config.ts drops only workerd's known entries for failures the tests cause on
 * purpose, whole; anything else is kept, an "internal error" too unless its reference is a known failure's id.
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
    `exception = kj/async-io-unix.c++:568: disconnected: ::read(fd, buffer, maxBytes): Connection reset by peer\n${STACK}\n`,
    `exception = kj/async-io-unix.c++:1538: disconnected: connect(): Connection reset by peer\n${STACK}\n`,
    `exception = kj/async-io.c++:60: disconnected: stream disconnected prematurely\n${STACK}\n`,
    'A header value for "Accept" contains non-ASCII characters: "éÿ\t text/html" (raw bytes: "\\xc3"). As a quirk…\n',
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

  it.each([
    "e = kj/compat/tls.c++:82: failed: OpenSSL error; message = error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER",
    "e = kj/compat/tls.c++:256: failed: TLS peer's certificate is not trusted; reason = self signed certificate",
    "e = kj/compat/http.c++:5952: failed: protocolError.description = Invalid response status line (invalid protocol).",
    "e = kj/compat/http.c++:5952: failed: protocolError.description = The headers sent by the server are not valid.",
  ])("a test origin's failure %j and its two internal errors are dropped; another's are kept", (failure) => {
    const id = `id${Math.random().toString(36).slice(2)}`;
    const internal = (reference: string) => [
      `uncaught exception; source = Uncaught (in promise); stack = Error: internal error; reference = ${reference}\n`,
      `uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1480: failed: jsg.Error: internal error; reference = ${reference}\n${STACK}\n`,
    ];
    // Before the failure is seen, its id is nobody's: kept.
    for (const chunk of internal(id)) expect(isWorkerdNoise(chunk)).toBe(false);
    expect(isWorkerdNoise(`${failure}\n${STACK}; sentryErrorContext = jsgInternalError; wdErrId = ${id}\n`)).toBe(true);
    for (const chunk of internal(id)) expect(isWorkerdNoise(chunk)).toBe(true);
    for (const chunk of internal(`${id}x`)) expect(isWorkerdNoise(chunk)).toBe(false);
  });
});
