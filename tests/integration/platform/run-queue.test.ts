// A worker executes at most its concurrency of runs at once (runtime/run-worker.ts, createRunWorker):
// the rest wait in the database, `running` and unleased, and are claimed oldest first as places free
// up, by this worker or by another with room. A run cancelled while it waits never executes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil, waitForRun } from "../../helpers/poll";
import { claimRuns } from "@/server/platform/repositories/run-leases";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform({ workerConcurrency: 1 });
  account = await platform.signup();
  await platform.database.prisma.platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Queued", user_id: "q1" } })).body.id;
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;

async function post(message: string, harness = platform): Promise<number> {
  const { status, body } = await harness.call("/runs", {
    key: account.key,
    query: { user_id: "q1" },
    body: { teammate_id: agentId, message, stream: false, permission_mode: "autonomous" },
  });
  expect(status).toBe(200);
  return body.id;
}

const cancel = async (runId: number) =>
  expect((await platform.call(`/runs/${runId}/cancel`, { key: account.key, query: { user_id: "q1" }, method: "POST" })).status).toBe(200);

const waitForStatus = (runId: number, statuses: string[]) => waitForRun((id) => prisma().platformRun.findUnique({ where: { id } }), runId, statuses);

describe("runs accepted while every worker is busy", () => {
  it("wait unleased in the database, run one at a time oldest first, and skip when cancelled meanwhile", async () => {
    const { worker } = await platform.runtime();
    // A slow run takes the worker's one place.
    const slow = await post("::delay 200\n::words 100");
    const waiting = [await post("first"), await post("second"), await post("third"), await post("never")];

    // A claim now takes nothing: the one place is the slow run's.
    expect(await worker!.claim()).toEqual([]);
    for (const runId of waiting) {
      const row = await prisma().platformRun.findUniqueOrThrow({ where: { id: runId } });
      expect(row).toMatchObject({ status: "running", leaseOwner: null, turnsUsed: 0 });
      expect(await prisma().platformRunEvent.count({ where: { runId } })).toBe(1);
    }
    expect(worker!.hasRoom()).toBe(false);

    await cancel(waiting[3]!);
    // The place frees up: the waiting runs go through it one at a time, oldest first.
    await cancel(slow);
    const finished = [];
    for (const runId of waiting.slice(0, 3)) finished.push(await waitForStatus(runId, ["completed"]));
    expect(finished.map((row) => row.output)).toEqual(["Echo: first", "Echo: second", "Echo: third"]);
    // One at a time: each started after the one before it had finished.
    for (let i = 1; i < finished.length; i++) {
      const firstFrame = await prisma().platformRunEvent.findFirstOrThrow({ where: { runId: finished[i]!.id, type: "content_block_delta" } });
      expect(firstFrame.createdAt.getTime()).toBeGreaterThanOrEqual(finished[i - 1]!.finishedAt!.getTime());
    }

    // The cancelled one never reached the model: no usage, no frames beyond its status and done.
    expect(await prisma().platformUsageRecord.count({ where: { runId: waiting[3]! } })).toBe(0);
    const frames = await prisma().platformRunEvent.findMany({ where: { runId: waiting[3]! }, orderBy: { id: "asc" } });
    expect(frames.map((frame) => frame.type)).toEqual(["run_status", "run_status", "done"]);
    await worker!.idle();
  });

  it("are claimed by another worker with room, woken as soon as they are accepted", async () => {
    const { worker } = await platform.runtime();
    const other = await startPlatform({ database: platform.database, workerConcurrency: 5 });
    // Its runtime (and worker) now, as the standalone server does at start, not on its first request.
    await other.runtime();
    try {
      const slow = await post("::delay 200\n::words 100");
      const runs = [await post("one"), await post("two")];
      for (const runId of runs) {
        const row = await waitForStatus(runId, ["completed"]);
        expect(row.output).toMatch(/^Echo: (one|two)$/);
      }
      // The busy worker still runs its slow run; the other one took the rest.
      expect((await prisma().platformRun.findUniqueOrThrow({ where: { id: slow } })).status).toBe("running");
      expect(worker!.hasRoom()).toBe(false);
      await cancel(slow);
      await worker!.idle();
    } finally {
      await other.close();
    }
  });
});

describe("roles and leases", () => {
  it("a web instance executes nothing: its runs wait for a worker's claim", async () => {
    const web = await startPlatform({ database: platform.database, role: "web" });
    try {
      expect((await web.runtime()).worker).toBeUndefined();
      const runId = await post("from the web", web);
      const row = await waitForStatus(runId, ["completed"]);
      // Executed by the first instance's worker, woken by the run-ready signal.
      expect(row.output).toBe("Echo: from the web");
    } finally {
      await web.close();
    }
  });

  it("a worker that lost a run's lease stops executing it, so two never write one run", async () => {
    const first = await startPlatform({ database: platform.database, runs: { leaseMs: 900 } });
    await first.runtime();
    try {
      const runId = await post("::delay 60\n::words 200", first);
      // Wait for the first words.
      await pollUntil(() => prisma().platformRunEvent.count({ where: { runId, type: "content_block_delta" } }), (words) => words > 0, "the first words");
      // Another owner holds the lease now: the first worker's next renewal (every 300 ms) finds it gone
      // and stops executing the run, long before its 200 words (12 s) are out.
      await prisma().platformRun.update({ where: { id: runId }, data: { leaseOwner: "worker_elsewhere", leaseExpiresAt: new Date(Date.now() + 60_000) } });
      await (await first.runtime()).worker!.idle();
      const frames = await prisma().platformRunEvent.findMany({ where: { runId }, select: { type: true } });
      expect(frames.filter((frame) => frame.type === "content_block_delta").length).toBeLessThan(200);
      expect(frames.map((frame) => frame.type)).not.toContain("done");
      const row = await prisma().platformRun.findUniqueOrThrow({ where: { id: runId } });
      expect(row).toMatchObject({ status: "running", leaseOwner: "worker_elsewhere" });
      await prisma().platformRun.update({ where: { id: runId }, data: { status: "cancelled", leaseOwner: null, leaseExpiresAt: null } });
    } finally {
      await first.close();
    }
  });

  it("a claim for one retention takes only runs that store that way (role all's two threads, runtime/worker-thread.ts)", async () => {
    const standard = await post("kept");
    const metadataOnly = await post("not kept");
    await Promise.all([waitForStatus(standard, ["completed"]), waitForStatus(metadataOnly, ["completed"])]);
    // Both waiting again, unleased, as runs accepted while no worker had room.
    const waiting = { status: "running", leaseOwner: null, leaseExpiresAt: null };
    await prisma().platformRun.update({ where: { id: standard }, data: waiting });
    await prisma().platformRun.update({ where: { id: metadataOnly }, data: { ...waiting, retention: "metadata_only" } });
    const claim = async (retention: "standard" | "metadata_only") =>
      (await claimRuns(prisma(), `worker_test_${retention}`, { limit: 10, leaseMs: 60_000, graceMs: 0, memories: 0, retention }))
        .map((claimed) => claimed.run.id)
        .filter((id) => id === standard || id === metadataOnly);
    try {
      expect(await claim("metadata_only")).toEqual([metadataOnly]);
      expect(await claim("standard")).toEqual([standard]);
    } finally {
      await prisma().platformRun.updateMany({ where: { id: { in: [standard, metadataOnly] } }, data: { status: "cancelled", leaseOwner: null, leaseExpiresAt: null } });
    }
  });
});
