/**
 * One request to a served Worker with node:http, which (unlike fetch) sends the Host header it is given
 * (docs/development.md "wrangler dev and /cdn-cgi"), and the management API call every suite that configures zones needs.
 */
import { request } from "node:http";

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function send(url: URL, method: string, headers: Record<string, string>, payload?: string): Promise<Answer> {
  return new Promise((resolvePromise, reject) => {
    const outgoing = request(url, { method, headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const flat = Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [
            name,
            Array.isArray(value) ? value.join(", ") : String(value),
          ]),
        );
        resolvePromise({ status: response.statusCode ?? 0, headers: flat, body });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/**
 * A management API call with the bench's admin token, on `Host: localhost` unless the suite serves the API on another
 * host (`apiHost`); throws unless it answers 200.
 */
export async function api(
  base: URL,
  token: string,
  method: string,
  path: string,
  body: unknown,
  apiHost = "localhost",
): Promise<void> {
  const answer = await send(
    new URL(path, base),
    method,
    { host: apiHost, authorization: `Bearer ${token}`, "content-type": "application/json" },
    JSON.stringify(body),
  );
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body}`);
}
