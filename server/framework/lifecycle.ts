// The Next.js app's drain: what a SIGTERM does to this process, the same story as the platform's
// standalone processes (server/platform/standalone.ts) and shared with the embedded platform.
//
// 1. Not ready: /readyz answers 503, so balancers stop sending new work.
// 2. No new chat turns: POST and GET /api/chat answer 503 with `x-inlay-draining` (the chat retries
//    them on another instance; nothing was started).
// 3. Open chat streams end with `interrupted: "draining"` in their message's metadata: the chat
//    reattaches at once (GET /api/chat?runId&cursor) on another instance, which replays the request
//    from its cursor, so nothing said is lost or repeated.
// 4. The embedded platform (when there is one) drains as a standalone one does: its worker hands its
//    runs back, its run streams end.
// 5. The HTTP server stops listening; every answer from now on says `Connection: close`, idle
//    connections are closed, and requests in flight get INLAY_DRAIN_TIMEOUT_MS to finish, then what is
//    left is cut. The databases close cleanly (a PGlite directory must not be left mid-write) and
//    the process exits 0.
//
// The HTTP server is Next's: it is found through Node's `http.server.request.start` diagnostics
// channel (public API), which also counts the requests in flight. `npm start` sets
// NEXT_MANUAL_SIG_HANDLE so Next leaves the signal to this module.
import { subscribe } from "node:diagnostics_channel";
import { setMaxListeners } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { env } from "@/lib/env";
import { flushLogs, logger } from "@/lib/logger";

interface RequestStart {
  request: IncomingMessage;
  response: ServerResponse;
  server: Server;
}

interface LifecycleState {
  draining: AbortController;
  servers: Set<Server>;
  inFlight: number;
  installed: boolean;
  /** What else closes before the process ends (the embedded platform, the database). */
  closers: (() => Promise<void>)[];
  /** Called when the drain starts, before anything closes (the embedded platform's own drain). */
  onDrain: ((timeoutMs: number) => void)[];
}

// Next bundles route handlers and instrumentation separately: one state per process, not per bundle.
const holder = globalThis as unknown as { inlayAppLifecycle?: LifecycleState };
const state = (holder.inlayAppLifecycle ??= {
  draining: new AbortController(),
  servers: new Set(),
  inFlight: 0,
  installed: false,
  closers: [],
  onDrain: [],
});

// Every open chat stream listens for the drain (and stops listening when it ends): any number of them
// is expected, so Node's warning past 10 listeners would only be noise in the log.
setMaxListeners(0, state.draining.signal);

/** Aborted once the process drains. */
export const appDraining = (): AbortSignal => state.draining.signal;

/** Runs when the drain starts (given the drain's deadline). */
export function onAppDrain(listener: (timeoutMs: number) => void): void {
  state.onDrain.push(listener);
}

/** Closes before the process exits, after the requests in flight. Later additions close first. */
export function closeOnExit(closer: () => Promise<void>): void {
  state.closers.unshift(closer);
}

/** The answer to a new chat turn while draining: 503, retried by the chat on another instance. */
export function drainingResponse(): Response {
  return Response.json(
    { error: { kind: "unavailable", message: "This server is restarting; the chat retries on another one." } },
    { status: 503, headers: { "retry-after": "1", "x-inlay-draining": "1", "cache-control": "no-store", connection: "close" } },
  );
}

function track({ response, server }: RequestStart) {
  state.servers.add(server);
  state.inFlight++;
  if (state.draining.signal.aborted) response.shouldKeepAlive = false;
  response.once("close", () => state.inFlight--);
}

/** Starts the drain, and resolves once the process may exit (every request done, or the deadline). */
export async function drainApp(timeoutMs = env.INLAY_DRAIN_TIMEOUT_MS): Promise<void> {
  if (state.draining.signal.aborted) return;
  state.draining.abort();
  for (const listener of state.onDrain) listener(timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (const server of state.servers) {
    server.close();
    server.closeIdleConnections();
  }
  // A connection whose answer just ended (a chat stream that ended on the drain) goes idle: closed too.
  while (state.inFlight > 0 && Date.now() < deadline) {
    for (const server of state.servers) server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (state.inFlight > 0) {
    logger.warn({ inFlight: state.inFlight, timeoutMs }, "requests still in flight at the drain deadline: closing their connections");
    for (const server of state.servers) server.closeAllConnections();
  }
  for (const close of state.closers) await close().catch((error: unknown) => logger.warn({ err: error }, "closing on exit failed"));
}

/** Hooks the process's signals and the HTTP server's requests (once per process). */
export function installAppLifecycle(): void {
  if (state.installed) return;
  state.installed = true;
  subscribe("http.server.request.start", (message) => track(message as RequestStart));
  const stop = (signal: NodeJS.Signals) => {
    const started = Date.now();
    logger.info({ signal }, "stopping the app: draining");
    void drainApp().finally(() => {
      logger.info({ signal, ms: Date.now() - started }, "app stopped");
      flushLogs();
      // 0 unless something set a failure (the embedded platform's worker thread ended).
      process.exit();
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
