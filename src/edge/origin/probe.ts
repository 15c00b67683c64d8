/**
 * Diagnostic probes with `connect()` (cloudflare:sockets), run only after an upstream fetch failed or stalled.
 * The runtime's fetch reports most failures as the same two messages (docs/origin.md), so the proxy asks the
 * network a second, narrower question:
 *
 * - `probeTcp`: does a TCP connection open within the budget? (521 / 522 / 523 / 1016 vs the rest)
 * - `probeTls`: does the origin answer a TLS ClientHello with a ServerHello? workerd's own TLS probe
 *   (`secureTransport: "on"`) fails with one message for every cause, so the hello is written by hand on a
 *   plain socket and only the first byte of the reply is read: the handshake is never completed.
 */
import { messageOf } from "../../shared/result";
import { randomBytes } from "../../shared/crypto";
import { isIpLiteral } from "../../shared/ip";
import { TIMEOUT, within } from "../../shared/timeout";
import { connect } from "cloudflare:sockets";
import type { OriginTarget } from "../../shared/origin-url";
import type { TcpProbe, TlsProbe } from "./network";

function socketAddress(target: OriginTarget): { hostname: string; port: number } {
  // URLs bracket IPv6 literals; connect() wants the bare address.
  const hostname = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
  return { hostname, port: target.port };
}

/** Maps a connect() failure to a probe outcome by its message (the only evidence the runtime gives). */
export function connectFailure(message: string): TcpProbe {
  if (/dns|resolv|name or service|not known|nxdomain/i.test(message)) return { kind: "unresolvable", detail: message };
  if (/unreachable|no route/i.test(message)) return { kind: "unreachable", detail: message };
  // workerd reports refused, and (untestable here) unreachable hosts, as "cannot connect to the specified address".
  return { kind: "refused", detail: message };
}

export async function probeTcp(target: OriginTarget, timeoutMs: number): Promise<TcpProbe> {
  let socket: Socket;
  try {
    socket = connect(socketAddress(target));
  } catch (e) {
    return connectFailure(messageOf(e));
  }
  socket.closed.catch(() => undefined); // its failure is reported through `opened`
  try {
    const opened = await within(
      socket.opened.then(
        (): TcpProbe => ({ kind: "open" }),
        (e: unknown): TcpProbe => connectFailure(messageOf(e)),
      ),
      timeoutMs,
    );
    return opened === TIMEOUT ? { kind: "timeout" } : opened;
  } finally {
    socket.close().catch(() => undefined);
  }
}

export async function probeTls(target: OriginTarget, timeoutMs: number): Promise<TlsProbe> {
  let socket: Socket;
  try {
    socket = connect(socketAddress(target));
  } catch {
    return { kind: "no-answer" };
  }
  socket.closed.catch(() => undefined);
  try {
    const answer = await within(firstReplyByte(socket, target.hostname), timeoutMs);
    if (answer === TIMEOUT || answer === null) return { kind: "no-answer" };
    if (answer === 0x16) return { kind: "server-hello" }; // handshake record (RFC 8446 §5.1)
    if (answer === 0x15) return { kind: "alert" };
    return { kind: "not-tls" };
  } finally {
    socket.close().catch(() => undefined);
  }
}

async function firstReplyByte(socket: Socket, hostname: string): Promise<number | null> {
  try {
    await socket.opened;
    const writer = socket.writable.getWriter();
    await writer.write(clientHello(hostname));
    writer.releaseLock();
    const reader = (socket.readable as ReadableStream<Uint8Array>).getReader();
    const { value, done } = await reader.read();
    reader.releaseLock();
    return done || value === undefined || value.byteLength === 0 ? null : (value[0] ?? null);
  } catch {
    return null;
  }
}

/**
 * A minimal TLS 1.2-compatible ClientHello (RFC 5246 §7.4.1.2, RFC 8446 §4.1.2) offering common ECDHE
 * suites, with SNI for names (RFC 6066 §3). Any TLS server answers it with a ServerHello or an alert.
 */
export function clientHello(hostname: string): Uint8Array {
  const u16 = (n: number): number[] => [(n >> 8) & 0xff, n & 0xff];
  const u24 = (n: number): number[] => [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const suites = [0xc02f, 0xc02b, 0xc030, 0xc02c, 0xcca8, 0xcca9, 0x009c, 0x002f].flatMap(u16);
  const extensions: number[] = [];
  const extension = (type: number, data: number[]): void =>
    void extensions.push(...u16(type), ...u16(data.length), ...data);
  if (!isIpLiteral(hostname)) {
    const name = Array.from(new TextEncoder().encode(hostname));
    extension(0x0000, [...u16(name.length + 3), 0x00, ...u16(name.length), ...name]);
  }
  extension(0x000a, [...u16(4), ...u16(0x001d), ...u16(0x0017)]); // supported_groups: x25519, secp256r1
  extension(0x000b, [1, 0]); // ec_point_formats: uncompressed
  extension(0x000d, [...u16(8), ...[0x0804, 0x0403, 0x0401, 0x0501].flatMap(u16)]); // signature_algorithms
  const random = Array.from(randomBytes(32));
  const body = [
    0x03,
    0x03,
    ...random,
    0x00,
    ...u16(suites.length),
    ...suites,
    0x01,
    0x00,
    ...u16(extensions.length),
    ...extensions,
  ];
  const handshake = [0x01, ...u24(body.length), ...body];
  return new Uint8Array([0x16, 0x03, 0x01, ...u16(handshake.length), ...handshake]);
}
