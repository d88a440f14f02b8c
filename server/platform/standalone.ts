// Runs the platform alone, without Next.js:
//   npm run platform -- --port 4010 [--host 127.0.0.1] [--data-dir DIR]
// --data-dir picks a PGlite data directory (an empty or new one gives a fresh database); without it,
// DATABASE_URL or PGLITE_DATA_DIR decide as in the app. Prints one line on stdout once it accepts
// requests; logs go to stderr.
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { getDb, openDatabase, setProcessDatabase } from "@/server/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    "data-dir": { type: "string" },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a number from 0 to 65535, got "${values.port}"`);
  process.exit(2);
}

const dataDir = values["data-dir"];
const database = await openDatabase(
  dataDir ? { dataDir } : { url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR },
);
setProcessDatabase(database);

const deps = platformDepsFromEnv(getDb);
// The runtime now, not on the first request: its sweeper resumes runs this or another process left.
await deps.runtime();
const app = createPlatformApp(deps);
const server = serve({ fetch: app.fetch, port, hostname: values.host }, (info) => {
  const host = values.host.includes(":") ? `[${values.host}]` : values.host;
  console.log(`listening on http://${host}:${info.port}/api/v2`);
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping platform");
  server.close();
  await deps.close();
  await database.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
