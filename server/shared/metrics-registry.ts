// The process's one Prometheus registry, below both halves: the platform's metrics (inlay_*,
// server/platform/observability/metrics.ts) and the framework's (inlay_app_*,
// server/framework/observability/metrics.ts) register here, so in the embedded mode (both in one
// process) one scrape shows both. Held on globalThis, and each metric made once by name: Next.js loads a
// module once per bundle (instrumentation, each route), and prom-client refuses a name twice.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration } from "prom-client";

/** Metrics that are a query: read when scraped. Each collector sets its gauges (and may fail alone). */
export type Collector = () => Promise<void>;

const holder = globalThis as unknown as { __inlayMetrics?: { registry: Registry; collectors: Set<Collector> } };

function shared() {
  if (!holder.__inlayMetrics) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: "inlay_" });
    holder.__inlayMetrics = { registry, collectors: new Set() };
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

/** The registry in Prometheus's text format, collectors run first. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  await Promise.all(
    [...shared().collectors].map((collect) =>
      collect().catch(() => {
        scrapeErrors.inc();
      }),
    ),
  );
  return { contentType: registry.contentType, body: await registry.metrics() };
}
