// The app's spans (OpenTelemetry API only): a chat turn's route, its session and tenancy, admission and
// ledger steps, and each platform-client call, which carries the W3C traceparent into the platform's
// request, so one trace runs from the browser's POST /api/chat through the platform's run down to the
// model call and the webhook back to the ledger. Tracing starts with the process (startup.ts, OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set); while it is off these helpers make non-recording spans.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { operationName } from "@inlay/core/platform-client";

const tracer = () => trace.getTracer("inlay-app");

export { SpanKind };

/** Runs `work` in a span (the active one while it runs); a thrown error marks it ERROR. */
export function appSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes }, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, async (span) => {
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

/** appSpan continuing the trace a W3C `traceparent` names (a platform webhook's), when there is one. */
export function appSpanFrom<T>(traceparent: string | undefined, name: string, options: { kind?: SpanKind; attributes?: Attributes }, work: (span: Span) => Promise<T>): Promise<T> {
  if (!traceparent) return appSpan(name, options, work);
  const parent = propagation.extract(context.active(), { traceparent });
  return context.with(parent, () => appSpan(name, options, work));
}

/**
 * The platform client's fetch, traced: a CLIENT span per attempt, named by method and route, whose
 * context goes along as `traceparent` (the platform's HTTP layer continues it). Streams end the span
 * when the headers are in.
 */
export function tracedFetch(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    // The operation's name with every id as {id} (the client's own naming): no identifier in a span.
    const operation = operationName(method, new URL(url).pathname.replace(/^.*?\/api\/v2/, ""));
    return appSpan(`platform ${operation}`, { kind: SpanKind.CLIENT, attributes: { "http.request.method": method, "inlay.platform.operation": operation } }, async (span) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
      const response = await inner(input, { ...init, headers });
      span.setAttribute("http.response.status_code", response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    });
  };
}
