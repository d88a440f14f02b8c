// Traces (observability/tracing.ts): one trace per run, from the POST that admitted it through the
// worker's pass (the run carries the context) to its model and tool calls and its webhook delivery,
// with the ai SDK's GenAI spans. Recorded by an in-memory exporter; export over OTLP is the SDK's.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { currentLogContext } from "@/lib/log-context";
import { logger } from "@/lib/logger";
import { startTracing, stopTracing } from "@/server/platform/observability/tracing";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const exporter = new InMemorySpanExporter();
let platform: PlatformHarness;
let worker: PlatformHarness;
let receiver: WebhookReceiver;
// What the info lines said and the context each carried (the logger itself is silent under test).
const infoLines: { message: string; context: Record<string, unknown> }[] = [];

beforeAll(async () => {
  vi.spyOn(logger, "info").mockImplementation(((_fields: unknown, message?: string) => {
    infoLines.push({ message: message ?? "", context: { ...currentLogContext() } });
  }) as typeof logger.info);
  await startTracing({ exporter, serviceName: "inlay-test", simple: true });
  // A web process admits, a worker on the same database executes: the context crosses in the run's
  // row. Jobs (the webhook attempt) looked for every 0.5 s.
  platform = await startPlatform({ role: "web", jobPollSeconds: 0.5 });
  worker = await startPlatform({ database: platform.database, role: "worker", jobPollSeconds: 0.5 });
  await worker.runtime();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await worker.close();
  await platform.close();
  await receiver.close();
  await stopTracing();
  vi.restoreAllMocks();
});

describe("a run's trace", () => {
  it("runs from the POST through the pass, the model and its tool call, to the webhook delivery", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const hook = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url("/traced"), events: ["run.completed"] } });
    expect(hook.status).toBe(201);
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Traced" } })).body;
    const created = await platform.call("/runs", {
      key: account.key,
      body: { teammate_id: agent.id, message: '::tool calculator {"expression":"6*7"}', stream: false, permission_mode: "autonomous" },
    });
    expect(created.status).toBe(200);
    const runId: number = created.body.id;
    await expect.poll(async () => (await platform.call(`/runs/${runId}`, { key: account.key })).body.status, { timeout: 10_000 }).toBe("completed");
    const [delivered] = await receiver.waitFor(1);
    expect(JSON.stringify(delivered!.json)).toContain(`${runId}`);
    // The delivery's span ends after the receiver answered.
    await expect.poll(() => exporter.getFinishedSpans().some((span) => span.name === "webhook.attempt")).toBe(true);

    const spans = exporter.getFinishedSpans();
    const post = spans.find((span) => span.name === "POST /api/v2/runs")!;
    expect(post, spans.map((span) => span.name).join(", ")).toBeDefined();
    expect(post.kind).toBe(SpanKind.SERVER);
    expect(post.attributes).toMatchObject({ "http.route": "/api/v2/runs", "http.response.status_code": 200 });
    const trace = post.spanContext().traceId;
    const inTrace = spans.filter((span) => span.spanContext().traceId === trace);
    const byId = new Map(inTrace.map((span) => [span.spanContext().spanId, span]));
    const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? "");
    const ancestors = (span: ReadableSpan) => {
      const chain: string[] = [];
      for (let at = parentOf(span); at; at = parentOf(at)) chain.push(at.name);
      return chain;
    };

    const pass = inTrace.find((span) => span.name === "run.pass")!;
    expect(pass).toBeDefined();
    expect(pass.kind).toBe(SpanKind.CONSUMER);
    expect(pass.attributes).toMatchObject({ "inlay.run.id": runId, "inlay.account.id": account.id });
    expect(parentOf(pass)).toBe(post);

    // The ai SDK's spans, GenAI semantic conventions: the agent, its model calls, the tool's execution.
    const tool = inTrace.find((span) => span.attributes["gen_ai.tool.name"] === "calculator")!;
    expect(tool, inTrace.map((span) => span.name).join(", ")).toBeDefined();
    expect(tool.attributes["gen_ai.operation.name"]).toBe("execute_tool");
    expect(ancestors(tool)).toContain("run.pass");
    const modelCalls = inTrace.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(modelCalls.length).toBeGreaterThanOrEqual(2);
    for (const call of modelCalls) {
      expect(call.attributes["gen_ai.request.model"]).toBe("inlay/sim");
      expect(ancestors(call)).toContain("run.pass");
    }
    // No prompt or answer is recorded.
    expect(inTrace.some((span) => "gen_ai.input.messages" in span.attributes || "gen_ai.output.messages" in span.attributes)).toBe(false);

    // The delivery joins the run's trace, with the guarded outbound call under it.
    const attempt = inTrace.find((span) => span.name === "webhook.attempt")!;
    expect(attempt).toBeDefined();
    expect(attempt.attributes).toMatchObject({ "inlay.webhook.event_type": "run.completed", "inlay.webhook.delivered": true });
    const outbound = inTrace.find((span) => parentOf(span) === attempt)!;
    expect(outbound).toMatchObject({ name: "POST", kind: SpanKind.CLIENT });
    expect(outbound.attributes).toMatchObject({ "server.address": "127.0.0.1", "http.response.status_code": 200 });

    // The worker's lines for the run carry the admitting request's trace id (a worker in another
    // process knows no request id; here, in the admitting process, the wake-up carried it along).
    expect(infoLines).toContainEqual({ message: "request", context: expect.objectContaining({ requestId: post.attributes["inlay.request_id"], traceId: trace }) });
    const passEnded = infoLines.find((line) => line.message === "run pass ended" && line.context.runId === runId)!;
    expect(passEnded.context).toMatchObject({ runId, accountId: account.id, traceId: trace });
  });

  it("records an inbound hook's path without its token", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Hooked", webhook: true } })).body;
    const token = (agent.webhook_url as string).split("/").at(-1)!;
    const accepted = await fetch(agent.webhook_url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(accepted.status).toBe(202);
    const span = exporter.getFinishedSpans().find((each) => each.name === "POST /api/v2/hooks/agents/:token")!;
    expect(span, exporter.getFinishedSpans().map((each) => each.name).join(", ")).toBeDefined();
    expect(span.attributes["url.path"]).toBe("/api/v2/hooks/agents/{redacted}");
    expect(JSON.stringify(exporter.getFinishedSpans().map((each) => each.attributes))).not.toContain(token);
  });

  it("gives a run no request started one trace: a mail's run, its failed pass (ERROR) and its webhook delivery", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const hook = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url("/mailed"), events: ["run.failed"] } });
    expect(hook.status).toBe(201);
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Mail Desk", email_inbox: true, allowed_senders: ["alice@example.org"] } })).body;
    // The worker's SMTP server starts the run: no request, no span around it.
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: await worker.smtpPort(), secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from: "alice@example.org", to: agent.email_address, subject: "Numbers", text: "::fail the ledger is gone" });
    } finally {
      transport.close();
    }
    const [delivered] = await receiver.waitFor(1, (request) => request.path === "/mailed");
    const runId = (delivered!.json as { run_id: number }).run_id;
    await expect.poll(() => exporter.getFinishedSpans().some((span) => span.name === "webhook.attempt" && span.attributes["inlay.webhook.event_type"] === "run.failed")).toBe(true);

    const spans = exporter.getFinishedSpans();
    const pass = spans.find((span) => span.name === "run.pass" && span.attributes["inlay.run.id"] === runId)!;
    expect(pass, spans.map((span) => span.name).join(", ")).toBeDefined();
    expect(pass.status).toMatchObject({ code: SpanStatusCode.ERROR, message: expect.stringContaining("the ledger is gone") });
    const inTrace = spans.filter((span) => span.spanContext().traceId === pass.spanContext().traceId);
    const start = inTrace.find((span) => span.name === "run.start")!;
    expect(start, inTrace.map((span) => span.name).join(", ")).toBeDefined();
    expect(start.parentSpanContext).toBeUndefined();
    expect(pass.parentSpanContext?.spanId).toBe(start.spanContext().spanId);
    expect(inTrace.find((span) => span.name === "webhook.attempt")?.parentSpanContext?.spanId).toBe(start.spanContext().spanId);
    // The GenAI spans name the agent.
    const agentSpans = inTrace.filter((span) => "gen_ai.agent.name" in span.attributes);
    expect(agentSpans.length).toBeGreaterThan(0);
    for (const span of agentSpans) expect(span.attributes["gen_ai.agent.name"]).toBe("Mail Desk");
  });
});
