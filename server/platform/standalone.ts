// Runs the platform alone, without Next.js:
//   npm run platform -- [--role web|worker|all] [--port 4010] [--host 127.0.0.1] [--data-dir DIR]
// Roles (DESIGN.md): web serves HTTP and SSE and executes nothing; worker claims and executes runs
// and jobs and opens no port; all (the default, or INLAY_ROLE) does both. --data-dir picks a PGlite
// data directory (an empty or new one gives a fresh database) and is refused with DATABASE_URL; without
// it, DATABASE_URL or PGLITE_DATA_DIR decide as in the app. Prints one line on stdout once ready ("listening on <url>",
// or "worker ready" for a worker); logs go to stderr.
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { getDb, openDatabase, setProcessDatabase } from "@/server/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";
import type { PlatformApp, PlatformRole } from "@/server/platform/context";
import { applyServerTimeouts } from "@/server/platform/http/server-timeouts";

const ROLES: readonly PlatformRole[] = ["web", "worker", "all"];

const { values } = parseArgs({
  options: {
    role: { type: "string", default: env.INLAY_ROLE },
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    "data-dir": { type: "string" },
  },
});

const role = values.role as PlatformRole;
if (!ROLES.includes(role)) {
  console.error(`--role must be one of ${ROLES.join(", ")}, got "${values.role}"`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a number from 0 to 65535, got "${values.port}"`);
  process.exit(2);
}

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
const database = await openDatabase(
  dataDir ? { dataDir } : { url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR },
);
setProcessDatabase(database);

const listenHost = values.host.includes(":") ? `[${values.host}]` : values.host;
let server: ReturnType<typeof serve> | undefined;
let boundPort = port;
let answer: (app: PlatformApp) => void = () => {};
if (role !== "worker") {
  // Bound first, so that links (INLAY_PLATFORM_PUBLIC_URL unset) name the port this process listens on,
  // the kernel's pick with --port 0. Requests that arrive before the app is built wait for it.
  const app = new Promise<PlatformApp>((resolve) => (answer = resolve));
  server = serve({ fetch: async (request, bindings) => (await app).fetch(request, bindings), port, hostname: values.host });
  applyServerTimeouts(server as Server);
  await once(server, "listening");
  boundPort = (server.address() as AddressInfo).port;
}
const localBaseUrl = `http://${listenHost}:${boundPort}/api/v2`;
const deps = platformDepsFromEnv(getDb, role, { localBaseUrl });
// The runtime now, not on the first request: its worker claims runs this or another process left.
await deps.runtime();
if (server) {
  answer(createPlatformApp(deps));
  console.log(`listening on ${localBaseUrl}`);
} else {
  console.log("worker ready");
}

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal, role }, "stopping platform");
  server?.close();
  await deps.close();
  await database.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
