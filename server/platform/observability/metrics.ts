// The process's Prometheus metrics (docs/design.md, Operations), in one registry. Counters and histograms
// are updated where things happen (HTTP middleware, the run worker and pass, webhook attempts, the
// outbound guard); gauges that are a query (queue depth and lag, the database pool) are collected when
// scraped, through collectors the runtime registers. Served as /metrics beside the probes (health.ts).
// Labels are bounded: route templates, never paths; model ids from the catalogue; no account ids.
// The registry is the process's, shared with the framework's metrics (server/shared/metrics-registry.ts).
import { counter, gauge, histogram } from "@/server/shared/metrics-registry";

export { addCollector, registry, scrape, type Collector } from "@/server/shared/metrics-registry";

// Latency buckets from a few milliseconds (a cached read) to a minute (a slow model's first token).
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// A run's wait for its worker and its first token: finer where a burst's figures fall (tenths of a second to seconds).
const RUN_WAIT_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.35, 0.5, 0.75, 1, 1.5, 2, 2.5, 3.5, 5, 7.5, 10, 30, 60];

export const httpDuration = histogram({
  name: "inlay_http_request_duration_seconds",
  help: "HTTP requests by route template, method and status, until the response's headers",
  labelNames: ["method", "route", "status"] as const,
  buckets: SECONDS,
});

export const runsAdmitted = counter({
  name: "inlay_runs_admitted_total",
  help: "Runs admitted (created, or replied to) by this process",
});

export const runsClaimed = counter({
  name: "inlay_runs_claimed_total",
  help: "Passes of runs this process's worker started, by how it got the run",
  labelNames: ["how"] as const,
});

export const runsEnded = counter({
  name: "inlay_runs_ended_total",
  help: "Passes of runs that ended here, by outcome (completed, failed, paused, handed_back)",
  labelNames: ["outcome"] as const,
});

export const claimLatency = histogram({
  name: "inlay_run_claim_latency_seconds",
  help: "From a run's admission to a worker starting its first pass",
  buckets: RUN_WAIT_SECONDS,
});

export const firstToken = histogram({
  name: "inlay_run_first_token_seconds",
  help: "From a run's admission to its first words or tool call in the log (first pass only)",
  buckets: RUN_WAIT_SECONDS,
});

export const openStreams = gauge({
  name: "inlay_sse_streams_open",
  help: "Run streams (SSE) this process is serving",
});

export const modelTokens = counter({
  name: "inlay_model_tokens_total",
  help: "Model tokens by provider, model and kind (input, output, cache_read, cache_write)",
  labelNames: ["provider", "model", "kind"] as const,
});

export const modelCost = counter({
  name: "inlay_model_cost_micro_usd_total",
  help: "What model calls cost, in micro-USD, by provider and model",
  labelNames: ["provider", "model"] as const,
});

export const webhookAttempts = counter({
  name: "inlay_webhook_attempts_total",
  help: "Webhook delivery attempts by outcome (delivered, endpoint_error: a non-2xx answer, unreachable: refused by the guard or a network failure)",
  labelNames: ["outcome"] as const,
});

export const webhookDeliveryLag = histogram({
  name: "inlay_webhook_delivery_lag_seconds",
  help: "From an event's creation to its successful delivery",
  buckets: [...SECONDS, 300, 1800, 3600],
});

export const outboundRefusals = counter({
  name: "inlay_outbound_refusals_total",
  help: "Outbound requests the guard refused, by reason",
  labelNames: ["reason"] as const,
});

export const queueJobs = gauge({
  name: "inlay_queue_jobs",
  help: "Jobs in the job queue by queue and state (created and retry: waiting; failed: every retry spent)",
  labelNames: ["queue", "state"] as const,
});

export const queueLag = gauge({
  name: "inlay_queue_lag_seconds",
  help: "How long the oldest due job of each queue has waited",
  labelNames: ["queue"] as const,
});

export const databasePool = gauge({
  name: "inlay_database_pool_connections",
  help: "This process's PostgreSQL pool: total, idle, and queries waiting for a connection (waiting)",
  labelNames: ["state"] as const,
});

/** Sets the queue gauges from one read of the queue (infrastructure/job-queue.ts queueStats). */
export function setQueueStats(stats: { name: string; state: string; count: number; lagSeconds: number }[]): void {
  queueJobs.reset();
  queueLag.reset();
  const lag = new Map<string, number>();
  for (const row of stats) {
    queueJobs.set({ queue: row.name, state: row.state }, row.count);
    lag.set(row.name, Math.max(lag.get(row.name) ?? 0, row.lagSeconds));
  }
  for (const [queue, seconds] of lag) queueLag.set({ queue }, seconds);
}

/** A model id's provider: `openai/gpt-4o` → openai; an id without one is its own. */
export function providerOf(modelId: string): string {
  const slash = modelId.indexOf("/");
  return slash > 0 ? modelId.slice(0, slash) : modelId;
}
