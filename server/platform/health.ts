// Liveness and readiness of a platform process, for load balancers and orchestrators. /healthz: the
// process answers (its event loop turns). /readyz: it can do its work now: the database answers, every
// migration this code knows is applied, the runtime (job queue, bus) has started, and for a process
// with a worker, the worker claims runs (it has not been told to stop). Served by every role: web
// processes on their own port, workers on a probe port of their own (standalone.ts). /metrics (the
// Prometheus text format) answers beside them: behind INLAY_METRICS_TOKEN when set, else only on a
// worker's probe port, which is private.
import { createHash, timingSafeEqual } from "node:crypto";
import { env, type Env } from "@/lib/env";
import { readMigrations } from "@/server/shared/migrate";
import { scrape } from "./observability/metrics";
import type { PlatformDeps, PlatformRole } from "./context";
import { appliedMigrationNames, pingDatabase } from "./repositories/health";

export interface ReadinessCheck {
  ok: boolean;
  error?: string;
}

export interface Readiness {
  ready: boolean;
  role: PlatformRole | "framework";
  checks: Record<string, ReadinessCheck>;
  /** What an operator should know but that does not make the process unready (a production run on the sim model). */
  warnings?: string[];
}

/**
 * A production platform on the simulated model answers every run with canned text: said loudly (at
 * start, standalone.ts, and in readiness) rather than found by a customer.
 */
export function modelProviderWarning(source: Pick<Env, "NODE_ENV" | "INLAY_MODEL_PROVIDER">): string | undefined {
  if (source.NODE_ENV !== "production" || source.INLAY_MODEL_PROVIDER !== "sim") return undefined;
  return "INLAY_MODEL_PROVIDER is sim: every run is answered by the simulated model; set openai, anthropic or openai-compatible (docs/deploy.md)";
}

/** A check that does not answer within this is failed: a probe must not hang on a stuck database. */
const CHECK_TIMEOUT_MS = 2_000;

export interface Health {
  readiness(): Promise<Readiness>;
  /** Answers /healthz and /readyz; anything else is not its to answer (undefined). */
  answer(request: Request): Promise<Response | undefined>;
}

export interface MetricsAccess {
  /** Scrapers present it as a bearer token; set, it is required wherever /metrics answers. */
  token?: string;
  /** Without a token: whether /metrics answers here (a worker's private probe port) or is not found (a public port). */
  open: boolean;
}

export function createHealth(
  // Without a runtime (the framework's app on a remote platform): the database and migrations only.
  deps: Pick<PlatformDeps, "database"> & Partial<Pick<PlatformDeps, "runtime">>,
  role: PlatformRole | "framework",
  metrics: MetricsAccess = { open: false },
  /** More checks by name (the framework's: its platform, its webhook): each fails by throwing. */
  more: Record<string, () => Promise<void>> = {},
): Health {
  const tokenDigest = metrics.token === undefined ? undefined : createHash("sha256").update(metrics.token).digest();
  // The migrations this code ships, read once: a process of an older release is still ready on a
  // database that has newer ones (forward-only migrations, a rolling upgrade).
  let known: Promise<string[]> | undefined;
  const knownMigrations = () => (known ??= readMigrations().then((migrations) => migrations.map((migration) => migration.name)));

  const checks: Record<string, () => Promise<void>> = {
    database: async () => pingDatabase((await deps.database()).prisma),
    migrations: async () => {
      const applied = await appliedMigrationNames((await deps.database()).prisma);
      const missing = (await knownMigrations()).filter((name) => !applied.has(name));
      if (missing.length > 0) throw new Error(`not applied: ${missing.join(", ")}`);
    },
  };
  Object.assign(checks, more);
  const { runtime } = deps;
  if (runtime) {
    checks.runtime = async () => {
      // A draining process (SIGTERM) leaves the balancer's rotation while it finishes what it has.
      if ((await runtime()).draining.aborted) throw new Error("draining: the process is stopping");
    };
    if (role !== "web") {
      checks.worker = async () => {
        const { worker } = await runtime();
        if (!worker) throw new Error("no worker in this process");
        if (worker.stopped) throw new Error("stopping: it claims no more runs");
      };
    }
  }

  async function run(check: () => Promise<void>): Promise<ReadinessCheck> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    });
    try {
      await Promise.race([check(), timeout]);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  async function readiness(): Promise<Readiness> {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => run(checks[name]!)));
    const byName = Object.fromEntries(names.map((name, index) => [name, results[index]!]));
    const warning = runtime ? modelProviderWarning(env) : undefined;
    return { ready: results.every((result) => result.ok), role, checks: byName, ...(warning ? { warnings: [warning] } : {}) };
  }

  async function answer(request: Request): Promise<Response | undefined> {
    const { pathname } = new URL(request.url);
    if (pathname === "/healthz") return Response.json({ status: "ok", role });
    if (pathname === "/readyz") {
      const state = await readiness();
      return Response.json(state, { status: state.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
    }
    if (pathname === "/metrics") {
      if (tokenDigest) {
        const presented = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
        // Compared as digests of equal length, in constant time.
        if (!timingSafeEqual(createHash("sha256").update(presented).digest(), tokenDigest)) {
          return new Response("metrics need the bearer token INLAY_METRICS_TOKEN\n", { status: 401, headers: { "www-authenticate": "Bearer" } });
        }
      } else if (!metrics.open) {
        return undefined;
      }
      const { contentType, body } = await scrape();
      return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
    }
    return undefined;
  }

  return { readiness, answer };
}
