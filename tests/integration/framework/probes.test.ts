// The Next.js app's probes (server/framework/health.ts): ready when its database, the platform with its
// key and the run ledger's webhook are; 503 naming what failed otherwise, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient } from "@/lib/platform-client";
import { createFrameworkHealth, type FrameworkHealthDeps } from "@/server/framework/health";
import { receiveLedgerWebhook } from "@/server/framework/tenancy/run-ledger-webhook";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";

const LEDGER_URL = "http://localhost:3000/api/platform-webhooks";
let fw: FrameworkHarness;

beforeAll(async () => {
  fw = await startFramework({
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
        checks: { database: { ok: true }, migrations: { ok: true }, platform: { ok: true }, ledger_webhook: { ok: true } },
      },
    });
    const hooks = await (await fw.connect()).client.webhooks.listAll();
    expect(hooks.map((hook) => hook.url)).toEqual([LEDGER_URL]);
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
