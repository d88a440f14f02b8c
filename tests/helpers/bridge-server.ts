// A fake iMessage bridge server (BlueBubbles-style) on a loopback port: GET /api/v1/ping and POST
// /api/v1/message/text, both taking ?password=. Records every request; can be told to refuse or to go
// down (close its socket), and back up on the same port.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BridgeRequest {
  method: string;
  path: string;
  password: string | null;
  json: any;
  /** The status the fake answered. */
  answered: number;
}

export interface FakeBridgeServer {
  /** http://127.0.0.1:<port> */
  url: string;
  password: string;
  received: BridgeRequest[];
  /** The messages sent through it: each {chatGuid, message}. */
  sent(): { chatGuid: string; message: string }[];
  /** A status to answer everything with instead of the normal answer (null: normal). */
  failWith(status: number | null): void;
  /** Answers every request this many milliseconds late (0: at once). */
  delayAnswers(ms: number): void;
  /** Resolves once `count` messages have been sent (15 s at most). */
  waitForSent(count: number, timeoutMs?: number): Promise<{ chatGuid: string; message: string }[]>;
  /** Stops listening: connections are refused until `up`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeBridgeServer(password = "bridge-password"): Promise<FakeBridgeServer> {
  const received: BridgeRequest[] = [];
  let failure: number | null = null;
  let answerDelayMs = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://bridge.test");
      let json: unknown = null;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // no JSON body
      }
      const request = { method: req.method ?? "GET", path: url.pathname, password: url.searchParams.get("password"), json };
      const answer = (status: number, body: unknown) => {
        received.push({ ...request, answered: status });
        setTimeout(() => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)), answerDelayMs);
      };
      if (failure !== null) return answer(failure, { status: failure, message: "failing on purpose" });
      if (url.searchParams.get("password") !== password) return answer(401, { status: 401, message: "Unauthorized" });
      if (req.method === "GET" && url.pathname === "/api/v1/ping") return answer(200, { status: 200, message: "Ping received!", data: "pong" });
      if (req.method === "POST" && url.pathname === "/api/v1/message/text") return answer(200, { status: 200, message: "Message sent!" });
      answer(404, { status: 404, message: "Not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const sent = () =>
    received
      .filter((request) => request.method === "POST" && request.path === "/api/v1/message/text" && request.answered === 200)
      .map((request) => request.json as { chatGuid: string; message: string });
  return {
    url: `http://127.0.0.1:${port}`,
    password,
    received,
    sent,
    failWith(status) {
      failure = status;
    },
    delayAnswers(ms) {
      answerDelayMs = ms;
    },
    async waitForSent(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (sent().length >= count) return sent();
        if (Date.now() > deadline) throw new Error(`waited for ${count} bridge messages, got ${sent().length}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    down: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    up: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
