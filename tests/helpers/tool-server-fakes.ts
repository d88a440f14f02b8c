// A vendor's REST API on a loopback port, for custom tool servers of kind rest_api: records every
// request (method, path, query, headers, JSON body) and answers by route.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface RestCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  json: any;
}

export interface RestFake {
  /** http://127.0.0.1:<port><path> */
  url(path?: string): string;
  calls: RestCall[];
  close(): Promise<void>;
}

/**
 * Routes: GET /weather/{city} → {city, temperature, units (from ?units)}; POST /notes → 201 echoing
 * the body with an id; GET /secret → 401 unless the request authenticates; GET /boom → 500.
 */
export async function startRestFake(): Promise<RestFake> {
  const calls: RestCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const text = Buffer.concat(chunks).toString("utf8");
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        // not JSON
      }
      const call: RestCall = { method: req.method ?? "GET", path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, json };
      calls.push(call);
      const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const weather = /^\/v1\/weather\/([^/]+)$/.exec(url.pathname);
      if (call.method === "GET" && weather) return send(200, { city: decodeURIComponent(weather[1]!), temperature: 21, units: call.query.units ?? "metric" });
      if (call.method === "POST" && url.pathname === "/v1/notes") return send(201, { id: calls.length, ...(json as object) });
      if (url.pathname === "/v1/secret") return req.headers.authorization ? send(200, { ok: true }) : send(401, { error: "unauthorized" });
      if (url.pathname === "/v1/boom") return send(500, { error: "exploded" });
      send(404, { error: "no route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = "") => `http://127.0.0.1:${port}${path}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
