// How a web process lets go of its connections when it drains, so that nothing in front of it
// (nginx's keep-alive pool, a client's agent) sends another request on one: every answer from then on
// says "Connection: close", a connection that goes idle is closed, and a stream that was open before
// the drain closes its connection the moment it ends. Otherwise the stream's socket goes back to
// nginx's pool, and the client's immediate reconnect reaches this process again (503 instance_draining).
import { type Server, ServerResponse } from "node:http";

export interface ConnectionDrain {
  /** Passes every response through before its headers are written (the node server's fetch). */
  respond(bindings: { outgoing: unknown } | undefined, response: Response): Response;
  /**
   * Starts the drain: the server takes no new connections and answers what its connections hold.
   * Resolves "closed" once every connection is closed, "timeout" after `timeoutMs` (the rest is cut off).
   */
  drain(timeoutMs: number): Promise<"closed" | "timeout">;
}

const isStream = (response: Response) => response.headers.get("content-type")?.startsWith("text/event-stream") === true;

export function connectionDrain(server: Pick<Server, "close" | "closeIdleConnections" | "closeAllConnections">): ConnectionDrain {
  let draining = false;
  return {
    respond(bindings, response) {
      // HTTP/1.1 only (the node server's bindings): an HTTP/2 stream has no connection of its own.
      const outgoing = bindings?.outgoing;
      if (!(outgoing instanceof ServerResponse)) return response;
      if (draining) {
        outgoing.shouldKeepAlive = false;
      } else if (isStream(response) && outgoing.socket) {
        const socket = outgoing.socket;
        outgoing.once("finish", () => {
          if (draining) socket.destroySoon();
        });
      }
      return response;
    },
    async drain(timeoutMs) {
      draining = true;
      const closed = new Promise<"closed">((resolve) => server.close(() => resolve("closed")));
      // A connection idle now, or one whose answer ends without passing through respond (a request
      // already answered as the drain began), is closed at once or at the next sweep.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
      const outcome = await Promise.race([closed, deadline]);
      if (outcome === "timeout") server.closeAllConnections();
      clearTimeout(timer);
      clearInterval(sweep);
      return outcome;
    },
  };
}
