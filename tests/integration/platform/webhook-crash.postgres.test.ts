// A webhook delivery survives `kill -9` between its attempts: `npm run platform` as a real child
// process on PostgreSQL, killed while the next attempt waits on the queue; the next process makes it.
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_JOB } from "@/server/platform/services/webhooks/webhook-attempts";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { pollUntil } from "../../helpers/poll";
import { standaloneProcesses } from "../../helpers/standalone";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const { startStandalone, stopAll } = standaloneProcesses();
let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let receiver: WebhookReceiver;
beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  stopAll();
  await receiver.close();
  await database.drop();
});

async function startProcess(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const { child, first } = await startStandalone(["--port", "0"], {
    DATABASE_URL: database.url,
    // The second attempt 10 s after the first: time to kill the process surely before it is due. (A
    // process killed during an attempt leaves its job active until pg-boss expires it, about a minute:
    // "late, not lost", and not what this test is about.)
    WEBHOOK_RETRY_SCHEDULE: "0,10s",
    OUTBOUND_ALLOW_LOOPBACK: "true",
  });
  return { child, baseUrl: first.replace(/^listening on /, "") };
}

async function call(baseUrl: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function queuedAttempts(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state = 'created'", [ATTEMPT_JOB]);
    return rows[0].count as number;
  } finally {
    await client.end();
  }
}

function deliveryOf(baseUrl: string, key: string, webhookId: number, done: (delivery: any) => boolean) {
  return pollUntil(
    async () => (await call(baseUrl, `/webhooks/${webhookId}/deliveries`, key)).body.data[0],
    (delivery) => Boolean(delivery && done(delivery)),
    "the delivery",
  );
}

describe("a webhook delivery whose process is killed between attempts", () => {
  it("is attempted again by the next process, and succeeds", async () => {
    receiver.respond((_, index) => (index === 0 ? 500 : 200));
    const first = await startProcess();
    const signup = await call(first.baseUrl, "/signup", null, {
      email: `hook-crash-${Date.now()}@example.test`,
      first_name: "Crash",
      password: "correct-horse",
      require_end_user_id: false,
    });
    expect(signup.status).toBe(201);
    const key: string = signup.body.api_key;
    const hook = await call(first.baseUrl, "/webhooks", key, { url: receiver.url("/crash"), events: ["run.completed"] });
    expect(hook.status).toBe(201);
    const agent = await call(first.baseUrl, "/agents", key, { name: "Notifier" });
    const run = await call(first.baseUrl, "/runs", key, { teammate_id: agent.body.id, message: "hello", stream: false });
    expect(run.status).toBe(200);

    // The first attempt failed and is recorded; the second waits on the queue.
    const waiting = await deliveryOf(first.baseUrl, key, hook.body.id, (delivery) => delivery.attempt_count === 1);
    expect(waiting).toMatchObject({ status: "pending", attempts: [{ number: 1, response_status: 500 }] });
    // The attempt is recorded before the next one is enqueued: wait for the queue to hold it. (Killed
    // between the two, the delivery is the minute sweep's: late, not lost, and not this test's case.)
    await pollUntil(
      () => queuedAttempts(),
      (count) => count === 1,
      "the second attempt on the queue",
    );
    const exited = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await exited;
    // Killed while the attempt still waited on the queue: the case this test is about.
    expect(Date.now()).toBeLessThan(Date.parse(waiting.next_attempt_at));
    expect(receiver.received).toHaveLength(1);

    const second = await startProcess();
    const [, delivered] = await receiver.waitFor(2);
    expect(delivered!.answered).toBe(200);
    expect(delivered!.json).toMatchObject({ type: "run.completed", run_id: run.body.id });
    expect(delivered!.headers["webhook-id"]).toBe(receiver.received[0]!.headers["webhook-id"]);
    const done = await deliveryOf(second.baseUrl, key, hook.body.id, (delivery) => delivery.status === "succeeded");
    expect(done.attempts.map((attempt: any) => attempt.response_status)).toEqual([500, 200]);
    // Exactly two requests, as the delivery recorded them: the kill lost nothing and doubled nothing.
    expect(receiver.received).toHaveLength(2);
    // Two real processes, each started with tsx on the database: the default 30 s is too short on a busy machine.
  }, 90_000);
});
