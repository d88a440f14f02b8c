// Runs the platform as a cluster on this machine:
//   npm run cluster -- --web N --workers M [--port 8080] [--nginx PATH]
// N web instances (free loopback ports) and M workers on PostgreSQL (DATABASE_URL) and Redis
// (REDIS_URL), behind nginx (--nginx, else NGINX, else /usr/sbin/nginx) on --port. Prints "cluster ready on <url>" once every
// process is ready; SIGINT or SIGTERM stops them all. A child that dies is reported, not restarted.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { env } from "@/lib/env";
import { startCluster, type Cluster } from "./start-cluster";

const { values } = parseArgs({
  options: {
    web: { type: "string", default: "2" },
    workers: { type: "string", default: "2" },
    port: { type: "string", default: "8080" },
    nginx: { type: "string", default: env.NGINX },
  },
});

function count(name: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
    process.exit(2);
  }
  return parsed;
}

const web = count("web", values.web, 1, 64);
const workers = count("workers", values.workers, 1, 64);
const port = count("port", values.port, 0, 65_535);
if (!env.DATABASE_URL || !env.REDIS_URL) {
  // Processes share only what is outside them: PostgreSQL for data and Redis for the rate limits.
  console.error("npm run cluster needs DATABASE_URL (PostgreSQL) and REDIS_URL");
  process.exit(2);
}

let cluster: Cluster | undefined;
const starting = new AbortController();
let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.error(`cluster: ${signal}, stopping every process`);
  if (!cluster) return starting.abort(); // startCluster stops what it started, then rejects
  await cluster.stop();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

// Compiled (dist/platform/cluster.js, `npm run build`), the children are the compiled platform beside
// this file; from the sources (tsx), the sources.
const here = fileURLToPath(import.meta.url);
const entry = here.endsWith(".js") ? [path.join(path.dirname(here), "standalone.js")] : undefined;

try {
  cluster = await startCluster({
    web,
    workers,
    port,
    entry,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    nginxPath: values.nginx,
    // eslint-disable-next-line no-restricted-properties -- the children inherit this process's environment
    env: process.env,
    signal: starting.signal,
  });
} catch (error) {
  if (stopping) process.exit(0);
  console.error(`cluster: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
for (const instance of [...cluster.web, ...cluster.workers]) {
  console.error(`cluster: ${instance.name} pid ${instance.pid}${instance.baseUrl ? ` on ${instance.baseUrl}` : ""}, probes on ${instance.probeUrl}`);
}
console.log(`cluster ready on ${cluster.baseUrl}`);
