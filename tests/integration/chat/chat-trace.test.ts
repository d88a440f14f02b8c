// One trace per chat turn across both halves (server/framework/tracing.ts): the app's POST /api/chat
// span is the parent of its platform-client call, whose traceparent the platform continues, through the
// run's pass and model calls to the webhook delivery and the run ledger's settlement back in the app.
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { agentByName } from "@/server/framework/chat/context";
import { ensureLedgerWebhook, receiveLedgerWebhook } from "@/server/framework/tenancy/run-ledger-webhook";
import { startTracing, stopTracing } from "@/server/platform/observability/tracing";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";

const LEDGER_URL = "http://localhost:3000/api/platform-webhooks";
const exporter = new InMemorySpanExporter();
let fw: FrameworkHarness;

beforeAll(async () => {
  await startTracing({ exporter, serviceName: "inlay-test", simple: true });
  fw = await startFramework({
    jobPollSeconds: 0.5,
    inProcessWebhooks: [
      {
        url: LEDGER_URL,
        async receive(request) {
          const delivery = await receiveLedgerWebhook(fw.database.prisma, await fw.connect(), await request.text(), request.headers, [TEST_SECRET]);
          return new Response(null, { status: delivery.outcome === "rejected" ? 401 : 200 });
        },
      },
    ],
  });
}, 120_000);
afterAll(async () => {
  await fw?.close();
  await stopTracing();
});

describe("a chat turn's trace", () => {
  it("runs from the app's POST /api/chat through the platform's run to the ledger's settlement", async () => {
    const connection = await fw.connect();
    expect(await ensureLedgerWebhook(fw.database.prisma, connection, LEDGER_URL, [TEST_SECRET])).toBe(true);
    const client = connection.client.forUser("traced-member");
    const handlers = createChatHandlers(async () => ({ client, agentId: (agent) => agentByName(client, agent), subject: { tenantId: "t", userId: "traced-member", via: "session" } }), new AbortController().signal);
    const body = { agent: "Traced", permissionMode: "autonomous", message: { id: "u1", role: "user", parts: [{ type: "text", text: '::tool calculator {"expression":"2*3"}' }] } };
    const response = await handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    expect(response.status).toBe(200);
    const runId = Number(response.headers.get("x-run-id"));
    await response.text();
    await expect.poll(() => exporter.getFinishedSpans().some((span) => span.name === "ledger.webhook" && span.attributes["inlay.ledger.outcome"] === "settled"), { timeout: 20_000 }).toBe(true);

    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.name === "POST /api/chat" && span.attributes["inlay.run.id"] === runId)!;
    expect(root, spans.map((span) => span.name).join(", ")).toBeDefined();
    expect(root.kind).toBe(SpanKind.SERVER);
    const inTrace = spans.filter((span) => span.spanContext().traceId === root.spanContext().traceId);
    const byId = new Map(inTrace.map((span) => [span.spanContext().spanId, span]));
    const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? "");
    const ancestors = (span: ReadableSpan) => {
      const chain: string[] = [];
      for (let at = parentOf(span); at; at = parentOf(at)) chain.push(at.name);
      return chain;
    };
    const named = (name: string) => inTrace.find((span) => span.name === name);

    expect(parentOf(root)).toBeUndefined();
    expect(parentOf(named("chat.context")!)).toBe(root);
    const call = named("platform POST /runs")!;
    expect(call, inTrace.map((span) => span.name).join(", ")).toMatchObject({ kind: SpanKind.CLIENT });
    expect(parentOf(call)).toBe(root);
    // The platform continues the app's trace: its server span under the client call, the run under it.
    const platformPost = named("POST /api/v2/runs")!;
    expect(parentOf(platformPost)).toBe(call);
    const pass = named("run.pass")!;
    expect(ancestors(pass)).toEqual(expect.arrayContaining(["POST /api/v2/runs", "platform POST /runs", "POST /api/chat"]));
    const model = inTrace.find((span) => span.attributes["gen_ai.operation.name"] === "chat")!;
    expect(ancestors(model)).toContain("POST /api/chat");
    // The webhook back to the app joins the trace, and the ledger's settlement sits under it.
    const settled = inTrace.find((span) => span.name === "ledger.webhook" && span.attributes["inlay.ledger.outcome"] === "settled")!;
    expect(settled).toBeDefined();
    expect(ancestors(settled)).toEqual(expect.arrayContaining(["webhook.attempt", "POST /api/chat"]));
    // No identifier or token in the client spans' names: route templates only.
    expect(inTrace.filter((span) => span.name.startsWith("platform ")).every((span) => !/\d/.test(span.name))).toBe(true);
  }, 90_000);
});
