// Viewport-only screenshots for looking at details (not part of the suite).
import { chromium } from "playwright-core";
import { serveWorker } from "./bench/lib/serve.ts";
const s = await serveWorker({ root: ".", entry: "src/index.ts", bindings: { ADMIN_TOKEN: "t" } });
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
for (const [path, w, scheme, name] of JSON.parse(process.argv[2]!) as [string, number, "light" | "dark", string][]) {
  const p = await b.newPage({ viewport: { width: w, height: 900 }, colorScheme: scheme });
  await p.goto(s.url.href + path.slice(1));
  await p.screenshot({ path: `/tmp/${name}.png` });
  await p.close();
}
await b.close(); await s.dispose();
