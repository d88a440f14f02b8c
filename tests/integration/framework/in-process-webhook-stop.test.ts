// The embedded platform's in-process first attempts when the process stops: those still waiting for a
// slot go to the job queue (whichever process works it next attempts them, this one until its queue
// stops), and stopping waits for the ones under way.
import { describe, expect, it } from "vitest";
import { startFramework } from "../../helpers/framework";
import { heldEndpoint } from "../../helpers/held-endpoint";
import { pollUntil, waitForRun } from "../../helpers/poll";

const HELD_URL = "http://localhost:3000/api/held-hook";

describe("in-process webhook attempts at stop", () => {
  it("hands the attempts waiting for a slot to the queue and finishes those under way", async () => {
    const { target, held, letGo } = heldEndpoint(HELD_URL);
    const fw = await startFramework({ inProcessWebhooks: [target] });
    const { prisma } = fw.database;
    let closing: Promise<void> | undefined;
    try {
      const client = (await fw.connect()).client.forUser("stop-user");
      const hook = await client.webhooks.create({ url: HELD_URL, events: ["run.completed"] });
      const agent = await client.agents.create({ name: "Stopping" });
      for (let index = 0; index < 11; index++) {
        const run = await client.runs.create({ teammate_id: agent.id, message: `stop ${index} ::words 1`, stream: false });
        await waitForRun((id) => client.runs.get(id), run.id, ["completed"]);
      }
      await pollUntil(() => Promise.resolve(held.length), (count) => count === 8, "8 deliveries under way");
      const deliveries = await pollUntil(
        () => prisma.platformWebhookDelivery.findMany({ where: { webhookId: hook.id }, select: { id: true } }),
        (rows) => rows.length === 11,
        "11 deliveries dispatched",
      );
      const keys = deliveries.map((row) => `${row.id}:1`);
      const queued = () =>
        prisma.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-attempt' AND singleton_key = ANY(${keys}::text[])`.then((rows) => rows[0]!.n);
      expect(await queued()).toBe(0);

      // Stopping waits for the 8 under way; the 3 waiting are jobs by then.
      closing = fw.close();
      await pollUntil(queued, (count) => count === 3, "the waiting attempts handed to the queue");
      letGo();
      await closing;
    } finally {
      letGo();
      await (closing ?? fw.close());
    }
  }, 90_000);
});
