// OpenTelemetry traces: one trace per run, from the POST that admitted it (or a root run.start span
// when no request started it: a mail, a schedule) through the queue to every pass's model and tool
// calls, outbound calls and webhook deliveries. The run carries its starting context
// (platform_runs.trace_context, W3C traceparent), so a pass on another process joins the same trace.
// Exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; otherwise nothing is started and every
// helper here costs one boolean test. The SDK, the exporter and the ai SDK's integration are loaded
// only when tracing starts: a process that does not trace does not hold them.
import { context, propagation, type Context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { NodeTracerProvider, SpanExporter } from "@opentelemetry/sdk-trace-node";
import type { OpenTelemetry } from "@ai-sdk/otel";
import { env } from "@/lib/env";

let provider: NodeTracerProvider | undefined;
let aiTelemetry: OpenTelemetry | undefined;

/** Whether this process records spans. */
export const tracingEnabled = (): boolean => provider !== undefined;

export const tracer = (): Tracer => trace.getTracer("inlay-platform");

/**
 * Starts recording spans into `exporter` (tests pass an in-memory one; `simple` exports each span as
 * it ends instead of in batches). Once per process; `stopTracing` flushes and ends it.
 */
export async function startTracing(options: { exporter: SpanExporter; serviceName: string; simple?: boolean }): Promise<void> {
  if (provider) throw new Error("tracing is started already in this process");
  const [{ resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor }, { ATTR_SERVICE_NAME }, { OpenTelemetry }] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/semantic-conventions"),
    import("@ai-sdk/otel"),
  ]);
  if (provider) throw new Error("tracing is started already in this process");
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    spanProcessors: [options.simple ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(options.exporter)],
  });
  // The async-hooks context manager and the W3C propagator, process-wide.
  provider.register();
  // The ai SDK's own integration: model and tool spans with the GenAI semantic conventions. Prompts
  // and answers stay out of spans (they may hold what a user would not send to a tracing backend).
  aiTelemetry = new OpenTelemetry({ tracer: tracer() });
}

/** Starts OTLP export when the standard OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporter reads the rest of OTEL_*). */
export async function startTracingFromEnv(role: string): Promise<void> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || provider) return;
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  await startTracing({ exporter: new OTLPTraceExporter(), serviceName: env.OTEL_SERVICE_NAME ?? `inlay-platform-${role}` });
}

/** Flushes what is recorded and stops (process exit, tests). */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  aiTelemetry = undefined;
  if (!stopping) return;
  await stopping.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

/**
 * streamText's telemetry option while tracing: the GenAI spans, no inputs or outputs recorded.
 * `functionId` becomes gen_ai.agent.name (the agent's name).
 */
export function modelTelemetry(functionId: string) {
  return aiTelemetry ? { telemetry: { integrations: [aiTelemetry], recordInputs: false, recordOutputs: false, functionId } } : {};
}

/** The active context as a W3C traceparent, to store with what is carried on (a run); null while off. */
export function currentTraceContext(): string | null {
  if (!provider) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** Whether work under way is inside a span (a request's, a pass's): false for a job's or a mail's. */
export const insideSpan = (): boolean => trace.getSpan(context.active()) !== undefined;

/**
 * Marks the active span failed, for work that ends in a failure without throwing (a pass that ends
 * its run failed). No-op while off.
 */
export function failActiveSpan(message: string): void {
  if (!provider) return;
  trace.getSpan(context.active())?.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** A context whose parent is the stored traceparent (the root when there is none). */
export function contextFromTraceparent(traceparent: string | null | undefined, headers?: { tracestate?: string }): Context {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent, ...headers });
}

/**
 * Runs `work` inside a span (a child of `parent`, else of the active context) that ends with it,
 * failed when it throws. While tracing is off, runs `work` alone.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!provider) return work(undefined);
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind, type Span };
