// Relays wrangler's output for `npm run dev` (scripts/dev.mjs), line by line: a Worker log block in esbuild's
// message format becomes one line per log line (docs/configuration.md "Events").

/** The text without its ANSI colour codes. */
export function stripAnsi(text) {
  return text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
}

/**
 * Relays wrangler's stdout or stderr to ours, line by line. wrangler prints a Worker's `console.warn` /
 * `console.error` through esbuild's message format: `▲ [WARNING] {first line}`, a blank line, the message's other
 * lines indented as notes, a blank line (and console's own newline). For the Worker's JSON log lines (`{"event":…`,
 * docs/configuration.md "Events"; a burst's lines come as one message) that block becomes one line per log line, each
 * with the block's marker; any other block (wrangler's own warnings) passes unchanged. `keep(line)` decides for the
 * other lines. A line left without its newline for 100 ms (a prompt) is written as it is, unless it is a piece of a
 * Worker log block (or shows nothing yet): on a loaded machine such a line can arrive in two chunks more than 100 ms apart, and written as it
 * was it would escape the block (its blank line relayed after it), so it waits for its newline.
 */
export function relay(stream, out, keep) {
  let rest = "";
  let marker = null; // inside a Worker log block: its marker, as wrangler coloured it
  let partial;
  const line = (raw) => {
    const plain = stripAnsi(raw);
    if (marker !== null) {
      if (plain.trim() === "") return; // the block's blank lines
      if (plain.startsWith('  {"event":')) return void out.write(`${marker}${plain.trim()}\n`);
      marker = null;
    }
    const block = /^(?:▲ \[WARNING\]|✘ \[ERROR\]) \{"event":/.test(plain) ? raw.indexOf('{"event":') : -1;
    if (block !== -1) {
      marker = raw.slice(0, block).replace(/(\x1b\[1m)+$/, "");
      return void out.write(`${marker}${plain.slice(plain.indexOf('{"event":'))}\n`);
    }
    if (keep(raw)) out.write(`${raw}\n`);
  };
  // A piece of a Worker log block: inside one, or the start of a `▲ [WARNING]` / `✘ [ERROR]` line, or a piece with
  // nothing visible yet (colour codes, one cut in the middle: written alone, the rest of its line would no longer
  // start with the marker and the block would pass as it is, blank lines and all).
  const inBlock = (piece) => {
    const visible = stripAnsi(piece).replace(/\x1b\[?[0-9;]*$/, "");
    return marker !== null || visible === "" || /^[▲✘]/.test(visible);
  };
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    clearTimeout(partial);
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const raw of lines) line(raw.replace(/\r$/, ""));
    if (rest !== "" && !inBlock(rest)) {
      partial = setTimeout(() => {
        out.write(rest);
        rest = "";
      }, 100);
    }
  });
  stream.on("end", () => {
    clearTimeout(partial);
    if (rest !== "") line(rest);
  });
}
