// Loopback ports for child processes that cannot report their own (nginx, next start, PgBouncer,
// PostgreSQL): one the kernel picks now, and whether something accepts connections on one yet.
import { connect, createServer } from "node:net";

/** A port nothing listens on right now (the kernel's pick, closed again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Whether a connection to 127.0.0.1:port is accepted. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
