// The process's one Prometheus registry, below both halves: the platform's metrics (inlay_*,
// server/platform/observability/metrics.ts) and the framework's (inlay_app_*,
// server/framework/observability/metrics.ts) register here, so in the embedded mode (both in one
// process) one scrape shows both. Held on globalThis, and each metric made once by name: Next.js loads a
// module once per bundle (instrumentation, each route), and prom-client refuses a name twice.
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration, type MetricObjectWithValues, type MetricValue } from "prom-client";

/** Metrics that are a query: read when scraped. Each collector sets its gauges (and may fail alone). */
export type Collector = () => Promise<void>;

/** Another thread's metrics of this process, as JSON (server/platform/runtime/worker-thread.ts). */
export type RemoteMetrics = () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;

const holder = globalThis as unknown as { __inlayMetrics?: { registry: Registry; collectors: Set<Collector>; remotes: Set<RemoteMetrics> } };

function shared() {
  if (!holder.__inlayMetrics) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: "inlay_" });
    holder.__inlayMetrics = { registry, collectors: new Set(), remotes: new Set() };
  }
  return holder.__inlayMetrics;
}

export const registry = shared().registry;

type Config<T> = Omit<T, "registers">;

export function counter<L extends string>(config: Config<CounterConfiguration<L>>): Counter<L> {
  return (registry.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter({ ...config, registers: [registry] });
}

export function gauge<L extends string>(config: Config<GaugeConfiguration<L>>): Gauge<L> {
  return (registry.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge({ ...config, registers: [registry] });
}

export function histogram<L extends string>(config: Config<HistogramConfiguration<L>>): Histogram<L> {
  return (registry.getSingleMetric(config.name) as Histogram<L> | undefined) ?? new Histogram({ ...config, registers: [registry] });
}

/** Registers a collector; returns its removal (a runtime that closes). */
export function addCollector(collector: Collector): () => void {
  const { collectors } = shared();
  collectors.add(collector);
  return () => collectors.delete(collector);
}

const scrapeErrors = counter({
  name: "inlay_metrics_collector_errors_total",
  help: "Collectors that failed during a scrape (their gauges keep the last value)",
});

/** Adds another thread's metrics to every scrape, summed with this one's; returns its removal. */
export function addRemoteMetrics(remote: RemoteMetrics): () => void {
  const { remotes } = shared();
  remotes.add(remote);
  return () => remotes.delete(remote);
}

async function collect(): Promise<void> {
  await Promise.all(
    [...shared().collectors].map((collector) =>
      collector().catch(() => {
        scrapeErrors.inc();
      }),
    ),
  );
}

/** The registry as JSON, collectors run first: what a thread hands the main thread's scrape. */
export async function metricsJson() {
  await collect();
  return registry.getMetricsAsJSON();
}

/** The registry in Prometheus's text format, collectors run first, other threads' metrics added. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  const remotes = [...shared().remotes];
  if (remotes.length === 0) {
    await collect();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
  const sets = await Promise.all([metricsJson(), ...remotes.map((remote) => remote())]);
  // Counters and histograms add up as across cluster workers; a gauge both threads set (the pools) too.
  return { contentType: registry.contentType, body: await AggregatorRegistry.aggregate(sets).metrics() };
}
