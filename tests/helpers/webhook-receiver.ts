// A webhook receiver on a loopback port: records every request and answers what the test tells it to.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { pollUntil } from "./poll";

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed JSON body. */
  json: any;
  /** What the receiver answered. */
  answered: number;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/<path> */
  url(path?: string): string;
  received: ReceivedRequest[];
  /** The status to answer a request with (default 200); may look at the requests so far. */
  respond(decide: (request: Omit<ReceivedRequest, "answered">, index: number) => number): void;
  /** Resolves once `count` requests matching `match` have come. */
  waitFor(count: number, match?: (request: ReceivedRequest) => boolean): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let decide: (request: Omit<ReceivedRequest, "answered">, index: number) => number = () => 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON: keep the text only
      }
      const request = { path: req.url ?? "/", headers: req.headers, body, json };
      const status = decide(request, received.length);
      received.push({ ...request, answered: status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `failure ${received.length}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    respond(next) {
      decide = next;
    },
    waitFor: (count, match = () => true) =>
      pollUntil(async () => received.filter(match), (matching) => matching.length >= count, `${count} matching webhook requests`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
