import { chromium } from "playwright-core";
import { serveWorker } from "./bench/lib/serve.ts";
const s = await serveWorker({ root: ".", entry: "src/index.ts", bindings: { ADMIN_TOKEN: "t" } });
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const p = await b.newPage({ viewport: { width: 360, height: 800 } });
await p.goto(s.url.href + "cdn-cgi/errors");
console.log(await p.evaluate(() => [...document.querySelectorAll("*")].filter(e => e.getBoundingClientRect().right > 360).slice(0,8).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + " " + (e.textContent ?? "").slice(0, 60))));
await b.close(); await s.dispose();
