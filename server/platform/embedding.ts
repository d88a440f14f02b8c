// What the framework takes from the platform when it embeds it in its own process (the embedded
// default): the app and its deps, their health, the operator account it prepares, the job queue and
// re-sealing it shares, tracing, and the demo OAuth app's catalogue entry. The framework imports the
// platform through this file only (eslint.config.mjs); nothing inside the platform imports it.
export { createPlatformApp } from "./app";
export { platformDepsFromEnv } from "./config";
export { IN_PROCESS_BINDINGS, type PlatformApp, type PlatformDeps } from "./context";
export type { DemoAppSettings, PlatformConfig } from "./platform-config";
export { createHealth, type Health, type MetricsAccess } from "./health";
export { addBalanceEntry } from "./services/billing/billing";
export { markOperatorAccountVerified } from "./services/account/verification";
export { createJobQueue, type JobQueue } from "./infrastructure/job-queue";
export { registerReseal, type SealedColumnKeys } from "./jobs/reseal-secrets";
export { startTracingFromEnv, stopTracing } from "./observability/tracing";
export { startWorkerThread, wantsWorkerThread, type WorkerThread } from "./runtime/worker-thread";
export { DEMO_APP_CLIENT_ID, DEMO_APP_SLUG, demoAppClientSecret } from "./apps/definitions/demo-notes";
