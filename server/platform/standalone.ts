// Runs the platform alone, without Next.js:
//   npm run platform -- [--role web|worker|all] [--port 4010] [--host 127.0.0.1] [--data-dir DIR]
//                       [--probe-port N (worker: /healthz and /readyz; other roles answer them on --port)]
// Roles (docs/design.md): web serves HTTP and SSE and executes nothing; worker claims and executes runs
// and jobs and opens no port; all (the default, or INLAY_ROLE) does both. --data-dir picks a PGlite
// data directory (an empty or new one gives a fresh database) and is refused with DATABASE_URL; without
// it, DATABASE_URL or PGLITE_DATA_DIR decide as in the app. Prints one line on stdout once ready ("listening on <url>",
// or "worker ready", with ", probes on <url>" when it has a probe port); logs go to stderr.
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { env } from "@/lib/env";
import { flushLogs, logger } from "@/lib/logger";
import { DataDirError } from "@/server/shared/data-dir-lock";
import { getDb, openDatabaseWhenReachable, setProcessDatabase } from "@/server/shared/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";
import type { PlatformApp, PlatformRole } from "@/server/platform/context";
import { errorEnvelope, PlatformError } from "@/server/platform/errors";
import { createHealth, modelProviderWarning, type Health } from "@/server/platform/health";
import { connectionDrain, type ConnectionDrain } from "@/server/platform/http/connection-drain";
import { applyServerTimeouts } from "@/server/platform/http/server-timeouts";
import { compactHeapAfterStartup } from "@/server/platform/infrastructure/startup-heap";
import { startTracingFromEnv, stopTracing } from "@/server/platform/observability/tracing";
import { startWorkerThread, wantsWorkerThread } from "@/server/platform/runtime/worker-thread";

const ROLES: readonly PlatformRole[] = ["web", "worker", "all"];

const USAGE = `usage: npm run platform -- [--role web|worker|all] [--port N] [--host ADDRESS] [--data-dir DIR] [--probe-port N]
  --role        web serves the API, worker executes runs and jobs, all does both (default: INLAY_ROLE or all)
  --port        the API's port (default 4010; 0 picks a free one)
  --host        the address to listen on (default 127.0.0.1)
  --data-dir    PGlite's directory when DATABASE_URL is unset (memory:// keeps it in memory)
  --probe-port  a worker's /healthz, /readyz and /metrics port (default: INLAY_PROBE_PORT)`;

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        role: { type: "string", default: env.INLAY_ROLE },
        port: { type: "string", default: "4010" },
        host: { type: "string", default: "127.0.0.1" },
        "data-dir": { type: "string" },
        "probe-port": { type: "string", default: env.INLAY_PROBE_PORT === undefined ? undefined : String(env.INLAY_PROBE_PORT) },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    // An unknown or malformed option: say which, and how it is used, not a stack trace.
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const { values } = parseCommandLine();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const role = values.role as PlatformRole;
if (!ROLES.includes(role)) {
  const app = values.role === "app" ? " (INLAY_ROLE=app is the Next.js app: npm start, or the image's server/entry.sh role)" : "";
  console.error(`--role must be one of ${ROLES.join(", ")}, got "${values.role}"${app}`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a number from 0 to 65535, got "${values.port}"`);
  process.exit(2);
}

const probePort = values["probe-port"] === undefined ? undefined : Number(values["probe-port"]);
if (probePort !== undefined && (!Number.isInteger(probePort) || probePort < 0 || probePort > 65_535)) {
  console.error(`--probe-port must be a number from 0 to 65535, got "${values["probe-port"]}"`);
  process.exit(2);
}
if (probePort !== undefined && role !== "worker") {
  // Web and all roles answer the probes on their own port.
  console.error(`--probe-port is for --role worker; --role ${role} answers /healthz and /readyz on --port`);
  process.exit(2);
}

// Before anything that may record a span (OTEL_EXPORTER_OTLP_ENDPOINT set; otherwise off).
await startTracingFromEnv(role);

const dataDir = values["data-dir"];
if (dataDir && env.DATABASE_URL) {
  // Two databases named: picking one silently would run against the one the operator did not mean.
  console.error("--data-dir (PGlite) and DATABASE_URL (PostgreSQL) name two databases: give one of them");
  process.exit(2);
}
if (role !== "all" && !env.DATABASE_URL) {
  // PGlite lives inside one process: a web process and a worker cannot share it.
  console.error(`--role ${role} needs DATABASE_URL (PostgreSQL); PGlite runs only with --role all`);
  process.exit(2);
}
const modelWarning = modelProviderWarning(env);
if (modelWarning) logger.warn({ role }, modelWarning);
// Until the platform is built the ports are bound and say so: /healthz answers, /readyz answers 503;
// while the database does not answer (PostgreSQL not up yet, or restarting: the open is retried with
// backoff) every other request gets 503 with the reason too, instead of waiting for it.
let starting = true;
let databaseAway: string | undefined;
function whileStarting(request: Request): Response | undefined {
  if (!starting) return undefined;
  const { pathname } = new URL(request.url);
  if (pathname === "/healthz") return Response.json({ status: "ok", role });
  const checks = { database: databaseAway === undefined ? { ok: true } : { ok: false, error: databaseAway } };
  if (pathname === "/readyz") return Response.json({ ready: false, role, checks }, { status: 503, headers: { "cache-control": "no-store" } });
  if (databaseAway === undefined) return undefined;
  const requestId = `req_${crypto.randomUUID().replaceAll("-", "")}`;
  const error = new PlatformError({ type: "api_error", status: 503, errorCode: "database_unavailable", message: "the platform is starting: its database does not answer yet" });
  const docBase = (env.INLAY_PLATFORM_PUBLIC_URL ?? `http://${listenHost}:${boundPort}/api/v2`).replace(/\/+$/, "");
  return Response.json(errorEnvelope(error, requestId, docBase), { status: 503, headers: { "retry-after": "5", "x-request-id": requestId } });
}

const listenHost = values.host.includes(":") ? `[${values.host}]` : values.host;
let server: ReturnType<typeof serve> | undefined;
let boundPort = port;
let answer: (ready: { app: PlatformApp; health: Health }) => void = () => {};
let connections: ConnectionDrain | undefined;
if (role !== "worker") {
  // Bound first, so that links (INLAY_PLATFORM_PUBLIC_URL unset) name the port this process listens on,
  // the kernel's pick with --port 0. Requests that arrive before the app is built wait for it.
  const built = new Promise<{ app: PlatformApp; health: Health }>((resolve) => (answer = resolve));
  server = serve({
    fetch: async (request, bindings) => {
      const away = whileStarting(request);
      if (away) return away;
      const { app, health } = await built;
      return connections!.respond(bindings, (await health.answer(request)) ?? (await app.fetch(request, bindings)));
    },
    port,
    hostname: values.host,
  });
  connections = connectionDrain(server as Server);
  applyServerTimeouts(server as Server);
  await once(server, "listening");
  boundPort = (server.address() as AddressInfo).port;
}
// A worker's probes, bound as early (its ready line below names the port).
let probes: ReturnType<typeof serve> | undefined;
let probeAnswer: ((request: Request) => Promise<Response | undefined>) | undefined;
if (role === "worker" && probePort !== undefined) {
  probes = serve({
    fetch: async (request) => whileStarting(request) ?? (await probeAnswer?.(request)) ?? new Response(null, { status: probeAnswer ? 404 : 503 }),
    port: probePort,
    hostname: values.host,
  });
  // A scraper's or a kubelet's kept-alive connection outlives Node's 5 s default, as on the web port.
  applyServerTimeouts(probes as Server);
  await once(probes, "listening");
}

// On PGlite its statements run on a thread of its own (server/shared/pglite-thread.ts), off the loop requests share.
const databaseOptions = { ...(dataDir ? { dataDir } : { url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR }), pgliteThread: env.INLAY_WORKER_THREAD };
const database = await openDatabaseWhenReachable(databaseOptions, (error, retryInMs) => {
  databaseAway = error instanceof Error ? error.message : String(error);
  logger.warn({ err: error, retryInMs }, "the database does not answer yet; trying again");
}).catch((error: unknown) => {
  // In use by another process, or damaged: the message says what to do; a stack would bury it.
  if (!(error instanceof DataDirError)) throw error;
  console.error(error.message);
  process.exit(1);
});
databaseAway = undefined;
setProcessDatabase(database);
const localBaseUrl = `http://${listenHost}:${boundPort}/api/v2`;
// Role all on PostgreSQL: its standard runs execute on a second thread (runtime/worker-thread.ts).
const workerThread =
  wantsWorkerThread(role, env.DATABASE_URL, env.INLAY_WORKER_THREAD)
    ? await startWorkerThread({
        localBaseUrl,
        databaseUrl: env.DATABASE_URL,
        // Crashed: nothing here executes standard runs any more; the orchestrator starts a new process.
        onExit: (error) => {
          logger.error({ err: error }, "the worker thread ended: stopping the process");
          process.exitCode = 1;
          void stop("worker thread ended");
        },
      })
    : undefined;
const deps = platformDepsFromEnv(getDb, role, { localBaseUrl, ...(workerThread ? { workerThread } : {}) });
const health = createHealth(deps, role, { token: env.INLAY_METRICS_TOKEN, open: false });
// The runtime now, not on the first request: its worker claims runs this or another process left.
await deps.runtime();
const app = server ? createPlatformApp(deps) : undefined;
// What startup allocated and no longer needs goes back to the system before the process idles.
compactHeapAfterStartup();
starting = false;
if (app) {
  answer({ app, health });
  console.log(`listening on ${localBaseUrl}`);
} else if (probes) {
  // The probe port is private (no balancer routes to a worker): /metrics answers there without a token.
  const probeHealth = createHealth(deps, role, { token: env.INLAY_METRICS_TOKEN, open: true });
  probeAnswer = (request) => probeHealth.answer(request);
  console.log(`worker ready, probes on http://${listenHost}:${(probes.address() as AddressInfo).port}`);
} else {
  console.log("worker ready");
}

// Draining (docs/design.md, Operations): no new connections, /readyz answers 503, open run streams end
// (clients resume on another instance with Last-Event-ID), the worker hands its runs back; requests
// in flight get INLAY_DRAIN_TIMEOUT_MS to finish, then what is left is cut off.
let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  logger.info({ signal, role }, "stopping platform: draining");
  const runtime = await deps.runtime();
  runtime.drain(env.INLAY_DRAIN_TIMEOUT_MS);
  // A balancer keeps idle connections open to send the next request on: none reaches this process
  // once what it holds is answered (http/connection-drain.ts).
  if (connections && (await connections.drain(env.INLAY_DRAIN_TIMEOUT_MS)) === "timeout") {
    logger.warn({ timeoutMs: env.INLAY_DRAIN_TIMEOUT_MS }, "requests still in flight at the drain deadline: their connections were closed");
  }
  await deps.close();
  probes?.close();
  await database.close();
  // What was recorded goes out before the process ends.
  await stopTracing().catch((error: unknown) => logger.warn({ err: error }, "flushing traces failed"));
  logger.info({ signal, role, ms: Date.now() - started }, "platform stopped");
  flushLogs();
  process.exit();
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
