// A draining web process's connections (http/connection-drain.ts), seen from raw sockets as nginx sees
// them: answers say "Connection: close", and a stream open from before the drain closes its connection
// as it ends, so a request written on it right after (nginx reusing it) is never answered there.
import { once } from "node:events";
import type { Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { connectionDrain } from "@/server/platform/http/connection-drain";

let server: Server | undefined;
afterEach(() => server?.closeAllConnections());

/** Everything a socket received so far, and whether the server ended it. */
function reader(socket: Socket) {
  const state = { text: "", ended: false };
  socket.on("data", (chunk: Buffer) => (state.text += chunk.toString()));
  socket.on("end", () => (state.ended = true));
  socket.on("error", () => (state.ended = true));
  return state;
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("a draining web process's connections", () => {
  it("answer with Connection: close, and a stream's connection closes as the stream ends", async () => {
    let endStream!: () => void;
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const handle = async (request: Request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      if (path === "/stream") {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(": open\n\n"));
            endStream = () => controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      if (path === "/slow") await slow;
      return new Response("ok");
    };
    server = serve({ port: 0, hostname: "127.0.0.1", fetch: async (request, bindings) => drain.respond(bindings, await handle(request)) }) as Server;
    const drain = connectionDrain(server);
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const open = async () => {
      const socket = connect({ host: "127.0.0.1", port });
      await once(socket, "connect");
      return { socket, seen: reader(socket) };
    };

    const stream = await open();
    stream.socket.write("GET /stream HTTP/1.1\r\nHost: platform\r\n\r\n");
    await until(() => stream.seen.text.includes(": open"));
    expect(stream.seen.text).toMatch(/^connection: keep-alive$/im);
    const inFlight = await open();
    inFlight.socket.write("GET /slow HTTP/1.1\r\nHost: platform\r\n\r\n");
    await until(() => inFlight.socket.bytesWritten > 0);

    const drained = drain.drain(5_000);
    releaseSlow();
    await until(() => inFlight.seen.text.includes("ok"));
    expect(inFlight.seen.text).toMatch(/^connection: close$/im);

    // The stream ends; as nginx would, the next request goes out on its connection at once.
    stream.socket.on("data", (chunk: Buffer) => {
      if (chunk.toString().endsWith("0\r\n\r\n")) stream.socket.write("GET /plain HTTP/1.1\r\nHost: platform\r\n\r\n");
    });
    endStream();
    await until(() => stream.seen.ended);
    expect(stream.seen.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(await drained).toBe("closed");
  });
});
