// The embedded platform's delivery of the framework's run-ledger webhook as `npm run dev` has it: the
// app's own URL (http://localhost, plain http, loopback) under the production outbound rules
// (OUTBOUND_ALLOW_LOOPBACK off), accepted because the platform is told it is the app's own endpoint
// (PlatformConfig.inProcessWebhooks, server/framework/embedded-platform.ts) and delivered in-process, signed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiveLedgerWebhook, ensureLedgerWebhook, type LedgerDelivery } from "@/server/framework/tenancy/run-ledger-webhook";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";
import { heldEndpoint } from "../../helpers/held-endpoint";
import { WEBHOOK_DEFAULTS } from "@/server/platform/jobs/webhook-delivery";
import { fairShare } from "@/server/platform/runtime/fair-share";
import { pollUntil, waitForRun } from "../../helpers/poll";

const URL = "http://localhost:3000/api/platform-webhooks";
/** The same app on another public origin (another port, as a development server may start on). */
const MOVED_URL = "http://localhost:3001/api/platform-webhooks";
/** Another endpoint of the app, answering only once the test lets it (a slow handler). */
const HELD_URL = "http://localhost:3000/api/held-hook";
let fw: FrameworkHarness;
const received: LedgerDelivery[] = [];
const receivedAt: string[] = [];
const { target: heldTarget, held, letGo } = heldEndpoint(HELD_URL);
/** Another endpoint of the app, noting when each delivery arrives. */
const TIMED_URL = "http://localhost:3000/api/timed-hook";
const arrivals: { runId: number; at: number }[] = [];
const timedTarget = {
  url: TIMED_URL,
  async receive(request: Request) {
    arrivals.push({ runId: (JSON.parse(await request.text()) as { run_id: number }).run_id, at: Date.now() });
    return new Response(null, { status: 204 });
  },
};

beforeAll(async () => {
  fw = await startFramework({
    jobPollSeconds: 0.5,
    inProcessWebhooks: [URL, MOVED_URL].map((url) => ({
      url,
      async receive(request: Request) {
        const delivery = await receiveLedgerWebhook(fw.database.prisma, await fw.connect(), await request.text(), request.headers, [TEST_SECRET]);
        received.push(delivery);
        receivedAt.push(url);
        return new Response(null, { status: delivery.outcome === "rejected" ? 401 : 200 });
      },
    })).concat(heldTarget, timedTarget),
  });
}, 120_000);
afterAll(() => fw?.close());

describe("the run ledger's webhook on the embedded platform", () => {
  it("is accepted at the app's own http://localhost URL, delivered in-process, and settles runs; other loopback URLs stay refused", async () => {
    const connection = await fw.connect();
    const { prisma } = fw.database;
    await expect(connection.client.webhooks.create({ url: "http://localhost:3000/elsewhere", events: ["run.completed"] })).rejects.toMatchObject({ status: 422 });
    expect(await ensureLedgerWebhook(prisma, connection, URL, [TEST_SECRET])).toBe(true);

    const member = await fw.callerFor("member@acme.test");
    const admin = await fw.callerFor("admin@acme.test");
    const agent = await admin.agents.create({
      scope: "tenant",
      agent: { name: "In-process", instructions: "Answer briefly.", model: null, permissionMode: "autonomous", tools: [] },
    });
    const run = await member.runs.create({ agentId: agent.id, message: "hello ::words 4" });
    await waitForRun((id) => member.runs.get({ runId: id }), run.id, ["completed"]);
    const settled = await pollUntil(
      () => prisma.runAdmission.findFirstOrThrow({ where: { platformRunId: run.id } }),
      (admission) => admission.releasedAt !== null,
      "the run's admission settled",
    );
    const debits = await prisma.platformBalanceTransaction.findMany({ where: { runId: run.id, type: "debit" } });
    expect(settled.costMicros).toBe(debits.reduce((sum, debit) => sum - debit.amountMicros, 0n));
    expect(settled.costMicros).toBeGreaterThan(0n);
    expect(received.some((delivery) => delivery.outcome === "settled" && delivery.event.run_id === run.id && delivery.settled === 1)).toBe(true);
    // Its first attempt was made in-process at once, not through a job of the queue. The attempt is
    // recorded once the endpoint has answered, after the settlement above: wait for the record.
    const delivery = await pollUntil(
      async () => {
        const found = await prisma.platformWebhookDelivery.findFirstOrThrow({ where: { event: { runId: run.id, type: "run.completed" } } });
        return { id: String(found.id), status: found.status, attempts: found.attempts };
      },
      (found) => found.status !== "pending",
      "the delivery's attempt recorded",
    );
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 1 });
    const jobs = await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-attempt' AND singleton_key = ${`${delivery.id}:1`}`;
    expect(jobs[0]!.n).toBe(0);
  }, 90_000);

  it("attempts a burst's deliveries in-process, waiting for a slot while 8 are under way, with no job each", async () => {
    const client = (await fw.connect()).client.forUser("burst-user");
    const { prisma } = fw.database;
    const hook = await client.webhooks.create({ url: HELD_URL, events: ["run.completed"] });
    const agent = await client.agents.create({ name: "Burst" });
    // Twelve runs end while the endpoint holds every delivery it has: 8 are under way, 4 wait.
    const runs: number[] = [];
    for (let index = 0; index < 12; index++) {
      const run = await client.runs.create({ teammate_id: agent.id, message: `burst ${index} ::words 1`, stream: false });
      runs.push(run.id);
      await waitForRun((id) => client.runs.get(id), run.id, ["completed"]);
    }
    await pollUntil(() => Promise.resolve(held.length), (count) => count === 8, "8 deliveries under way");
    const deliveries = () =>
      prisma.platformWebhookDelivery.findMany({ where: { webhookId: hook.id }, select: { id: true, status: true, attempts: true } });
    await pollUntil(deliveries, (rows) => rows.length === 12, "12 deliveries dispatched");
    letGo();
    const done = await pollUntil(deliveries, (rows) => rows.every((row) => row.status !== "pending"), "every delivery attempted");
    expect(done.map(({ status, attempts }) => ({ status, attempts }))).toEqual(Array(12).fill({ status: "succeeded", attempts: 1 }));
    expect(held.sort((a, b) => a - b)).toEqual(runs);
    const jobs = await prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-attempt' AND singleton_key = ANY(${done.map((row) => `${row.id}:1`)}::text[])`;
    expect(jobs[0]!.n).toBe(0);
  }, 90_000);

  it("makes a first attempt once this process's runs under way have said their first words, or a second after its dispatch", async () => {
    const client = (await fw.connect()).client.forUser("first-words-user");
    const { prisma } = fw.database;
    const hook = await client.webhooks.create({ url: TIMED_URL, events: ["run.completed"] });
    const agent = await client.agents.create({ name: "First words" });
    // A pass of this process that has not said its first word yet (a model slow to begin).
    const silent = fairShare();
    let silentEndedAt: number;
    let dispatchedAt: number;
    let runId: number;
    try {
      const run = await client.runs.create({ teammate_id: agent.id, message: "quick ::words 1", stream: false });
      runId = run.id;
      await waitForRun((id) => client.runs.get(id), run.id, ["completed"]);
      const delivery = await pollUntil(
        () => prisma.platformWebhookDelivery.findFirst({ where: { webhookId: hook.id } }),
        (row) => row !== null,
        "the delivery dispatched",
      );
      dispatchedAt = delivery!.createdAt.getTime();
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      silentEndedAt = Date.now();
      silent.end();
    }
    const arrival = await pollUntil(
      () => Promise.resolve(arrivals.find((entry) => entry.runId === runId)),
      (entry) => entry !== undefined,
      "the delivery's arrival",
    );
    // Not before the silent pass ended, unless the wait's limit after dispatch came first.
    expect(arrival!.at).toBeGreaterThanOrEqual(Math.min(silentEndedAt, dispatchedAt + WEBHOOK_DEFAULTS.inProcessWaitMs));
  }, 90_000);

  it("follows the app to a new public origin, is turned back on when the platform disabled it, and registered again when deleted", async () => {
    const connection = await fw.connect();
    const { prisma } = fw.database;
    expect(await ensureLedgerWebhook(prisma, connection, URL, [TEST_SECRET])).toBe(true);
    const first = (await prisma.frameworkPlatformAccount.findFirstOrThrow()).webhookId!;

    // The app now answers on another origin: the registration moves there, and deliveries follow it.
    expect(await ensureLedgerWebhook(prisma, connection, MOVED_URL, [TEST_SECRET])).toBe(true);
    expect(await connection.client.webhooks.get(first)).toMatchObject({ url: MOVED_URL, active: true });
    const member = await fw.callerFor("member@acme.test");
    const agentId = (await member.agents.list()).agents.find((agent) => agent.name === "In-process")!.id;
    const run = await member.runs.create({ agentId, message: "moved ::words 2" });
    await waitForRun((id) => member.runs.get({ runId: id }), run.id, ["completed"]);
    await pollUntil(
      () => Promise.resolve(received.findIndex((delivery) => delivery.outcome === "settled" && delivery.event.run_id === run.id)),
      (index) => index >= 0 && receivedAt[index] === MOVED_URL,
      "the run's delivery at the new origin",
    );

    // Paused on the platform (as delivery does after failing for long): turned back on, at the app's URL.
    await connection.client.webhooks.update(first, { active: false });
    expect(await ensureLedgerWebhook(prisma, connection, URL, [TEST_SECRET])).toBe(true);
    expect(await connection.client.webhooks.get(first)).toMatchObject({ url: URL, active: true });

    // Deleted on the platform: registered again, with a new secret kept sealed.
    await connection.client.webhooks.delete(first);
    expect(await ensureLedgerWebhook(prisma, connection, MOVED_URL, [TEST_SECRET])).toBe(true);
    const again = (await prisma.frameworkPlatformAccount.findFirstOrThrow()).webhookId!;
    expect(again).not.toBe(first);
    expect(await connection.client.webhooks.get(again)).toMatchObject({ url: MOVED_URL, active: true });
  }, 90_000);
});
