// Small readers of the request that handlers share.
import type { PlatformContext } from "../context";
import type { AuthContext } from "../services/account/auth";
import { resumeRunsAwaitingApp } from "../services/apps/app-run-pauses";
import type { KnownRun } from "../services/runs/run-context";

/** The platform's public base URL ({base_url}, ending in /api/v2): configured, never the Host header. */
export const baseUrlOf = (c: PlatformContext) => c.var.deps.config.publicBaseUrl;

/** The caller's key, on routes behind requireApiKey (defineRoute's default). */
export function authOf(c: PlatformContext): AuthContext {
  const auth = c.var.auth;
  if (!auth) throw new Error("authOf() on a route without requireApiKey");
  return auth;
}

/** What domain services need from the request: the database, its hot-row cache and the platform's configuration. */
export const servicesOf = (c: PlatformContext) => ({
  prisma: c.var.prisma,
  cache: c.var.runtime.cache,
  config: c.var.deps.config,
});

/** What the run service needs: the services above plus the event log's writer and bus and the runs' hand-off. */
export const runServicesOf = (c: PlatformContext) => ({
  ...servicesOf(c),
  bus: c.var.runtime.bus,
  events: c.var.runtime.events,
  live: c.var.runtime.live,
  startRun: (runId: number, known?: KnownRun) => c.var.runtime.startRun(runId, known),
  lease: c.var.runtime.localLease(),
  runReady: c.var.runtime.runReady,
});

/** What completing a connection needs: the services above, and resuming the runs that waited for the app. */
export function connectServicesOf(c: PlatformContext) {
  const services = runServicesOf(c);
  return { ...services, resumeRunsAwaitingApp: (scope: { accountId: number; endUserId: number | null }, app: string) => resumeRunsAwaitingApp(services, scope, app) };
}

/** The services above and the job queue: for services that enqueue (webhook retries, trigger fires). */
export const servicesWithJobsOf = (c: PlatformContext) => ({ ...servicesOf(c), jobs: c.var.runtime.jobs });

/** The services above and the script sandbox: for the tool-server service (a script's approval checks it there). */
export const toolServerServicesOf = (c: PlatformContext) => ({ ...servicesOf(c), scriptSandbox: () => c.var.runtime.scriptSandbox() });
