// Accepted runs wait while the process has no room (runtime/executor.ts, runtime/load-gauge.ts): a gauge
// held shut here lets only the one run every process keeps going execute; the rest wait in order,
// `running`, their leases renewed past their first expiry, and start one by one as it frees up. A run
// cancelled while it waits never executes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAbandonedRunIds } from "@/server/platform/repositories/runs";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const LEASE_MS = 600;
let room = false;
let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform({ runs: { leaseMs: LEASE_MS, graceMs: 100 }, load: { tryStart: () => room } });
  account = await platform.signup();
  await platform.database.prisma.platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Queued", user_id: "q1" } })).body.id;
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(message: string): Promise<number> {
  const { status, body } = await platform.call("/runs", {
    key: account.key,
    query: { user_id: "q1" },
    body: { teammate_id: agentId, message, stream: false, permission_mode: "autonomous" },
  });
  expect(status).toBe(200);
  return body.id;
}

const cancel = async (runId: number) =>
  expect((await platform.call(`/runs/${runId}/cancel`, { key: account.key, query: { user_id: "q1" }, method: "POST" })).status).toBe(200);

async function waitForStatus(runId: number, statuses: string[]) {
  for (let i = 0; i < 400; i++) {
    const row = await prisma().platformRun.findUniqueOrThrow({ where: { id: runId } });
    if (statuses.includes(row.status)) return row;
    await sleep(25);
  }
  throw new Error(`run ${runId} never reached ${statuses.join("/")}`);
}

describe("runs accepted while the process has no room", () => {
  it("wait in order holding their leases, start as room frees up, and skip when cancelled meanwhile", async () => {
    const { executor } = await platform.runtime();
    // A slow run takes the one place every process keeps.
    const slow = await post("::delay 200\n::words 100");
    const waiting = [await post("first"), await post("second"), await post("third"), await post("never")];

    // Past their first lease's expiry, the waiting runs are still running, untouched, and held by us.
    await sleep(LEASE_MS * 2);
    for (const runId of waiting) {
      const row = await prisma().platformRun.findUniqueOrThrow({ where: { id: runId } });
      expect(row).toMatchObject({ status: "running", leaseOwner: executor.lease.owner, turnsUsed: 0 });
      expect(row.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now());
      expect(await prisma().platformRunEvent.count({ where: { runId } })).toBe(1);
    }
    expect(await findAbandonedRunIds(prisma(), 100, 50)).toEqual([]);

    await cancel(waiting[3]!);
    // The place frees up: the waiting runs go through it one at a time, oldest first.
    await cancel(slow);
    const finished = [];
    for (const runId of waiting.slice(0, 3)) finished.push(await waitForStatus(runId, ["completed"]));
    for (let i = 1; i < finished.length; i++) expect(finished[i]!.finishedAt!.getTime()).toBeGreaterThan(finished[i - 1]!.finishedAt!.getTime());
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

    room = true;
    await executor.idle();
  });
});
