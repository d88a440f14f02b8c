// The Next.js app's probes (server/framework/health.ts): ready when its database, the platform with its
// key and the run ledger's webhook are; 503 naming what failed otherwise, never a 500. And its /metrics
// (server/framework/observability/metrics.ts): a chat turn, a tRPC run and its settlement, counted in
// one scrape with the embedded platform's own metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient } from "@inlay/core/platform-client";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { ChatRefusal } from "@/server/framework/chat/context";
import { EmbedMintRefused, mintEmbedToken } from "@/server/framework/embed/mint";
import { createFrameworkHealth, type FrameworkHealthDeps } from "@/server/framework/health";
import { recordPlatformCall, timedRoute, watchLedgerAdmissions } from "@/server/framework/observability/metrics";
import { openAdmissionCount } from "@/server/framework/tenancy/run-ledger";
import { receiveLedgerWebhook } from "@/server/framework/tenancy/run-ledger-webhook";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";
import { pollUntil, waitForRun } from "../../helpers/poll";

const LEDGER_URL = "http://localhost:3000/api/platform-webhooks";
let fw: FrameworkHarness;

beforeAll(async () => {
  fw = await startFramework({
    onCall: recordPlatformCall,
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
  // Provisioning the framework's account on the first connection takes longer than a probe waits.
  await fw.connect();
}, 120_000);
afterAll(() => fw?.close());

const healthWith = (overrides: Partial<FrameworkHealthDeps> = {}) =>
  createFrameworkHealth({
    database: async () => fw.database,
    connection: () => fw.connect(),
    ledgerWebhookUrl: LEDGER_URL,
    webhookSecretSet: false,
    secrets: [TEST_SECRET],
    ...overrides,
  });

const readyz = async (overrides?: Partial<FrameworkHealthDeps>) => {
  const answer = (await healthWith(overrides).answer(new Request("http://app.test/readyz")))!;
  return { status: answer.status, body: await answer.json() };
};

describe("GET /readyz of the app", () => {
  it("is ready with its database, the platform answering its key and the ledger's webhook registered (registering it if need be)", async () => {
    expect(await readyz()).toEqual({
      status: 200,
      body: {
        ready: true,
        role: "framework",
        checks: { database: { ok: true }, migrations: { ok: true }, app: { ok: true }, platform: { ok: true }, ledger_webhook: { ok: true } },
      },
    });
    const hooks = await (await fw.connect()).client.webhooks.listAll();
    expect(hooks.map((hook) => hook.url)).toEqual([LEDGER_URL]);
  });

  it("answers 503 while the app drains (SIGTERM), everything else still fine", async () => {
    const draining = new AbortController();
    draining.abort();
    const { status, body } = await readyz({ draining: draining.signal });
    expect(status).toBe(503);
    expect(body.checks.app).toEqual({ ok: false, error: "draining: the process is stopping" });
    expect(body.checks.platform).toEqual({ ok: true });
  });

  it("answers 503 naming the platform when it refuses the app's key", async () => {
    const wrongKey = async (): Promise<PlatformConnection> => {
      const connection = await fw.connect();
      const options = { ...connection.options, apiKey: "sk_inlay_not_a_key_of_this_platform" };
      return { ...connection, options, client: createPlatformClient(options) };
    };
    const { status, body } = await readyz({ connection: wrongKey });
    expect(status).toBe(503);
    expect(body.ready).toBe(false);
    expect(body.checks.database).toEqual({ ok: true });
    expect(body.checks.platform).toMatchObject({ ok: false, error: expect.stringMatching(/key|auth/i) });
  });

  it("answers 503 naming the platform when it cannot be reached", async () => {
    const unreachable = async (): Promise<PlatformConnection> => {
      const options = { baseUrl: "http://platform.invalid/api/v2", apiKey: "sk_inlay_x", fetch: () => Promise.reject(new TypeError("fetch failed")) };
      return { mode: "remote", options, client: createPlatformClient(options) };
    };
    const { status, body } = await readyz({ connection: unreachable, webhookSecretSet: true });
    expect(status).toBe(503);
    expect(body.checks.platform.ok).toBe(false);
    expect(body.checks.ledger_webhook.ok).toBe(false);
  });

  it("on a remote platform, answers 503 until the ledger's webhook secret is set and its webhook registered there", async () => {
    const embedded = await fw.connect();
    const remote = async (): Promise<PlatformConnection> => ({ ...embedded, mode: "remote" });
    expect((await readyz({ connection: remote })).body.checks.ledger_webhook).toEqual({ ok: false, error: "PLATFORM_WEBHOOK_SECRET is not set" });
    const other = await readyz({ connection: remote, webhookSecretSet: true, ledgerWebhookUrl: "https://app.example/api/platform-webhooks" });
    // The embedded test account's webhook is at this app's URL: a remote app checks the path and the events.
    expect(other.body.checks.ledger_webhook).toEqual({ ok: true });
    await embedded.client.webhooks.update((await embedded.client.webhooks.listAll())[0]!.id, { active: false });
    try {
      const { status, body } = await readyz({ connection: remote, webhookSecretSet: true });
      expect(status).toBe(503);
      expect(body.checks.ledger_webhook).toMatchObject({ ok: false, error: expect.stringContaining("/api/platform-webhooks") });
    } finally {
      await embedded.client.webhooks.update((await embedded.client.webhooks.listAll())[0]!.id, { active: true });
    }
  });

  it("answers 503 naming the database when it cannot be opened, and /healthz still answers", async () => {
    const health = healthWith({
      database: () => Promise.reject(new Error("could not open the database")),
    });
    const ready = (await health.answer(new Request("http://app.test/readyz")))!;
    expect(ready.status).toBe(503);
    const body = await ready.json();
    expect(body.checks.database).toEqual({ ok: false, error: "could not open the database" });
    expect(body.checks.migrations.ok).toBe(false);
    expect((await health.answer(new Request("http://app.test/healthz")))!.status).toBe(200);
  });
});

describe("GET /metrics of the app", () => {
  const TOKEN = "an-app-metrics-token-of-some-length";
  const scrape = async (authorization?: string) =>
    (await healthWith({ metrics: { token: TOKEN, open: false } }).answer(
      new Request("http://app.test/metrics", authorization ? { headers: { authorization } } : {}),
    ))!;
  // The registry is the process's (test files share it): what this test adds is compared.
  const read = async () => {
    const text = await (await scrape(`Bearer ${TOKEN}`)).text();
    return (series: string) => Number(new RegExp(`^${series.replace(/[{}"/.[\]]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  };

  it("counts a chat turn, a refused one, a tRPC run settled by the ledger's webhook and the platform calls, with the platform's metrics", async () => {
    const stopWatching = watchLedgerAdmissions(() => openAdmissionCount(fw.database.prisma));
    try {
      const before = await read();
      // A chat turn through the bridge, as app/api/chat serves it (timed as its route).
      const client = (await fw.connect()).client.forUser("metrics-member");
      const agent = await client.agents.create({ name: "Measured" });
      let refuse = false;
      const handlers = createChatHandlers(async () => ({
        client,
        agentId: async () => agent.id,
        async admit() {
          if (refuse) throw new ChatRefusal({ kind: "cap_reached", message: "cap reached", code: "member_runs" });
          return { started: async () => {}, withdraw: async () => {}, abandon: async () => {} };
        },
        subject: { tenantId: "t", userId: "metrics-member", via: "session" },
      }));
      const send = timedRoute("/api/chat", handlers.send);
      const message = (id: string) =>
        new Request("http://app.test/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ agent: String(agent.id), message: { id, role: "user", parts: [{ type: "text", text: "hello ::words 4" }] } }),
        });
      const turn = await send(message("m1"));
      expect(turn.status).toBe(200);
      await turn.text();
      // The chat page reattaching to that run (GET /api/chat): its log, from the start.
      const reattached = await handlers.resume(new Request(`http://app.test/api/chat?runId=${turn.headers.get("x-run-id")}`));
      expect(reattached.status).toBe(200);
      await reattached.text();
      refuse = true;
      await (await send(message("m2"))).text();

      // A run through tRPC: admitted by the run ledger, settled by the platform's webhook.
      const admin = await fw.callerFor("admin@acme.test");
      const member = await fw.callerFor("member@acme.test");
      const tenantAgent = await admin.agents.create({
        scope: "tenant",
        agent: { name: "Metered", instructions: "Answer briefly.", model: null, permissionMode: "autonomous", tools: [] },
      });
      const run = await member.runs.create({ agentId: tenantAgent.id, message: "hello ::words 3" });
      await waitForRun((id) => member.runs.get({ runId: id }), run.id, ["completed"]);
      await pollUntil(
        () => fw.database.prisma.runAdmission.findFirstOrThrow({ where: { platformRunId: run.id } }),
        (admission) => admission.releasedAt !== null,
        "the run's admission settled",
      );
      await expect(mintEmbedToken(fw.database.prisma, { tenantId: "00000000-0000-0000-0000-000000000000", userId: "u", origin: "not an origin" })).rejects.toBeInstanceOf(
        EmbedMintRefused,
      );

      const answer = await scrape(`Bearer ${TOKEN}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const after = await read();
      const added = (series: string) => after(series) - before(series);
      expect(added('inlay_app_http_request_duration_seconds_count{method="POST",route="/api/chat",status="200"}')).toBe(2);
      expect(added('inlay_app_chat_turns_started_total{kind="new"}')).toBe(1);
      expect(added('inlay_app_chat_turns_refused_total{by="framework",limit="member_runs"}')).toBe(1);
      expect(added('inlay_app_chat_reattaches_total{outcome="streamed"}')).toBe(1);
      expect(after("inlay_app_chat_streams_open")).toBe(0);
      expect(added('inlay_app_trpc_procedure_duration_seconds_count{procedure="runs.create",type="mutation",status="200"}')).toBe(1);
      expect(added('inlay_app_ledger_turns_settled_total{via="webhook"}')).toBe(1);
      expect(added("inlay_app_ledger_settle_lag_seconds_count")).toBe(1);
      expect(after("inlay_app_ledger_admissions_open")).toBe(0);
      expect(added('inlay_app_platform_call_duration_seconds_count{operation="POST /runs",status="200"}')).toBe(2);
      expect(added('inlay_app_platform_call_duration_seconds_count{operation="GET /runs/{id}",status="200"}')).toBeGreaterThan(0);
      expect(added('inlay_app_embed_token_mints_total{outcome="invalid_origin"}')).toBe(1);
      // The embedded platform's own metrics, in the same scrape.
      expect(added('inlay_http_request_duration_seconds_count{method="POST",route="/api/v2/runs",status="200"}')).toBe(2);
      expect(added('inlay_runs_ended_total{outcome="completed"}')).toBe(2);
    } finally {
      stopWatching();
    }
  }, 90_000);

  it("answers only the bearer of INLAY_METRICS_TOKEN, and is not found without one", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer a-wrong-token-of-some-length")).status).toBe(401);
    expect(await healthWith().answer(new Request("http://app.test/metrics"))).toBeUndefined();
  });
});
