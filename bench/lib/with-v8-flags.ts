/**
 * `node --import tsx bench/lib/with-v8-flags.ts FLAG…`: reads a binary workerd config (Miniflare's) from stdin and
 * writes it with `Config.v8Flags` set to the FLAGs (bench/lib/workerd-config.ts). Run by the workerd wrapper of
 * bench/lib/instructions.ts before it execs workerd.
 */
import { withV8Flags } from "./workerd-config.ts";

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
process.stdout.write(withV8Flags(Buffer.concat(chunks), process.argv.slice(2)));
