// Types of scripts/relay.mjs (a plain script npm run dev runs without a build), for its test.
import type { Readable, Writable } from "node:stream";

/** The text without its ANSI colour codes. */
export function stripAnsi(text: string): string;

/** Relays `stream` to `out` line by line, a Worker log block as one line per log line; `keep` decides for the rest. */
export function relay(stream: Readable, out: Writable, keep: (line: string) => boolean): void;
