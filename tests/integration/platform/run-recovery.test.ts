// A run whose worker died must not stay `running`: any worker claims it again and resumes it from
// its last finished tool step, or ends it failed and interrupted when resuming is not safe.
// (tests/integration/platform/run-crash.postgres.test.ts and the cluster tests kill real processes.)
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf, type Frame } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

const auth = () => ({ authorization: `Bearer ${account.key}` });

async function runRow(overrides: { leaseExpiresAt: Date | null; updatedAt?: Date; resumeAttempts?: number; checkpoint?: object }) {
  const agent = (await platform.call("/agents", { key: account.key, body: { name: "Orphan" } })).body;
  const { prisma } = platform.database;
  const run = await prisma.platformRun.create({
    data: {
      accountId: account.id,
      agentId: agent.id,
      status: "running",
      permissionMode: "autonomous",
      humanInTheLoop: false,
      model: "inlay/sim",
      effort: "max",
      maxTurns: 2000,
      messages: [{ role: "user", content: "hello" }],
      metadata: { mine: 1 },
      leaseOwner: overrides.leaseExpiresAt ? "exec_dead" : null,
      leaseExpiresAt: overrides.leaseExpiresAt,
      resumeAttempts: overrides.resumeAttempts ?? 0,
      ...(overrides.checkpoint ? { checkpoint: overrides.checkpoint } : {}),
    },
  });
  if (overrides.updatedAt) {
    await prisma.$executeRaw`UPDATE platform_runs SET updated_at = ${overrides.updatedAt} WHERE id = ${run.id}`;
  }
  return run.id;
}

/** What the worker's poll does: claims what waits, then (here) waits for it to be dealt with. */
async function sweep(harness: PlatformHarness = platform): Promise<number[]> {
  const worker = (await harness.runtime()).worker!;
  const claimed = await worker.claim();
  await worker.idle();
  return claimed;
}

async function eventLog(runId: number, harness: PlatformHarness = platform, lastEventId?: string, userId?: string): Promise<Frame[]> {
  const response = await harness.request(`/runs/${runId}/events${userId ? `?user_id=${userId}` : ""}`, {
    headers: { ...auth(), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
  return readFrames(response, { until: (frame) => frame.data.type === "done" });
}

describe("abandoned runs", () => {
  it("resumes a running run whose lease lapsed from its conversation, runs one never claimed, and leaves a live one alone", async () => {
    const orphan = await runRow({ leaseExpiresAt: new Date(Date.now() - 60_000) });
    const live = await runRow({ leaseExpiresAt: new Date(Date.now() + 60_000) });
    const fresh = await runRow({ leaseExpiresAt: null });

    const swept = await sweep();
    expect(swept).toContain(orphan);
    expect(swept).not.toContain(live);
    expect(swept).toContain(fresh);

    const { body } = await platform.call(`/runs/${orphan}`, { key: account.key });
    expect(body).toMatchObject({ status: "completed", output: "Echo: hello", metadata: { mine: 1 }, turns_used: 1 });
    const frames = await eventLog(orphan);
    expect(frames[0]!.data).toMatchObject({ type: "run_status", status: "running", resumed: true, attempt: 1, discard_after: "0" });
    expect(textOf(frames)).toBe("Echo: hello");
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
    expect((await platform.call(`/runs/${live}`, { key: account.key })).body.status).toBe("running");
    // A run nobody had claimed yet is simply executed: nothing to resume.
    const freshLog = await eventLog(fresh);
    expect(freshLog.some((frame) => frame.data.resumed)).toBe(false);
    expect(textOf(freshLog)).toBe("Echo: hello");
    expect((await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: fresh } })).resumeAttempts).toBe(0);

    // Claiming again takes nothing twice.
    expect(await sweep()).not.toContain(orphan);
    await platform.database.prisma.platformRun.update({ where: { id: live }, data: { status: "cancelled", leaseOwner: null } });
  });

  it("ends a run failed and interrupted once it was resumed the allowed number of times", async () => {
    const tired = await runRow({ leaseExpiresAt: new Date(Date.now() - 60_000), resumeAttempts: 2 });
    expect(await sweep()).toContain(tired);
    const { body } = await platform.call(`/runs/${tired}`, { key: account.key });
    expect(body).toMatchObject({
      status: "failed",
      stop_reason: "interrupted",
      metadata: { mine: 1, interrupted: true, auto_retryable: true },
    });
    expect(body.error).toMatch(/after 2 resumes/);
    const frames = await eventLog(tired);
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "failed", stop_reason: "interrupted" });
    expect(frames.some((frame) => frame.data.resumed)).toBe(false);
  });

  it("does not resume a run whose process died while a tool with side effects ran", async () => {
    const risky = await runRow({
      leaseExpiresAt: new Date(Date.now() - 60_000),
      checkpoint: { unsafe_tool: "report_issue", unsafe_at_event: "0" },
    });
    expect(await sweep()).toContain(risky);
    const { body } = await platform.call(`/runs/${risky}`, { key: account.key });
    expect(body).toMatchObject({ status: "failed", stop_reason: "interrupted", metadata: { interrupted: true, auto_retryable: true } });
    expect(body.error).toMatch(/report_issue/);
  });
});

describe("resuming after a finished tool step", () => {
  it("redoes only the step that was cut off: no tool call twice, every word once", async () => {
    // The first worker: its model stops for good after seven words, as if the process had died there.
    let words = 0;
    let release!: (error: Error) => void;
    const frozen = new Promise<never>((_, reject) => (release = reject));
    frozen.catch(() => {});
    const first = await startPlatform({
      database: platform.database,
      simSleep: (ms, signal) => (++words > 6 ? frozen : delay(ms, undefined, { signal })),
    });
    const second = await startPlatform({ database: platform.database });
    try {
      const user = { user_id: "resumer" };
      const agent = (await first.call("/agents", { key: account.key, body: { name: "Resumable", ...user } })).body;
      const message = '::tool memory {"action":"save","content":"likes tea"}\n::delay 5\n::words 20';
      const created = await first.call("/runs", {
        key: account.key,
        body: { teammate_id: agent.id, message, stream: false, permission_mode: "autonomous", ...user },
      });
      expect(created.status).toBe(200);
      const runId: number = created.body.id;

      // A reader on the first instance sees the tool step and the first words of the next step.
      const seen = await readFrames(await first.request(`/runs/${runId}/events?user_id=resumer`, { headers: auth() }), {
        until: (frame) => frame.data.type === "content_block_delta" && frame.data.delta.text.startsWith("charlie"),
      });
      const { prisma } = platform.database;
      // The tool step's checkpoint, not just the side-effect note written before the tool ran.
      await expect
        .poll(async () => (await prisma.platformRun.findUnique({ where: { id: runId } }))?.checkpoint)
        .toMatchObject({ steps: 1, messages_json: expect.any(String) });

      // The first worker is gone (as far as the database can tell: its lease lapsed under another
      // owner's name, so its own heartbeat does not renew it), and the second one takes over.
      await prisma.platformRun.update({ where: { id: runId }, data: { leaseOwner: "worker_gone", leaseExpiresAt: new Date(Date.now() - 60_000) } });
      expect(await sweep(second)).toContain(runId);

      const run = (await second.call(`/runs/${runId}`, { key: account.key, query: user })).body;
      expect(run).toMatchObject({ status: "completed", turns_used: 2 });
      // The resumed pass saw the tool's result as the first one did (keys in their order), so it said the same.
      expect(run.output).toMatch(/^Tool memory returned \{"saved":true,"id":\d+\}\nalpha bravo charlie .* sierra tango$/);
      // The side effect happened once: the finished step was not done again.
      expect(await prisma.platformMemory.count({ where: { accountId: account.id, content: "likes tea" } })).toBe(1);

      const log = await eventLog(runId, second, undefined, "resumer");
      expect(log.filter((frame) => frame.data.type === "tool_use")).toHaveLength(1);
      expect(log.filter((frame) => frame.data.type === "tool_result")).toHaveLength(1);
      // The words said before the cut stay in the log and are not said again.
      expect(textOf(log)).toBe(run.output);
      const resumed = log.filter((frame) => frame.data.resumed);
      expect(resumed).toHaveLength(1);
      expect(resumed[0]!.data).toMatchObject({ type: "run_status", status: "running", attempt: 1 });
      // Nothing to drop: the resume frame's discard_after is the last frame before it.
      const before = log[log.indexOf(resumed[0]!) - 1]!;
      expect(resumed[0]!.data.discard_after).toBe(before.id);
      // Ids stay monotonic and unique.
      const ids = log.map((frame) => BigInt(frame.id!));
      expect([...new Set(ids)].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
      // The reader who saw the cut-off words reconnects where it was and gets only what is new.
      const lastSeen = seen.at(-1)!.id!;
      const after = await eventLog(runId, second, lastSeen, "resumer");
      expect(textOf(seen) + textOf(after)).toBe(run.output);
      expect(after.every((frame) => BigInt(frame.id!) > BigInt(lastSeen))).toBe(true);
    } finally {
      release(new Error("test over"));
      await first.close();
      await second.close();
    }
  });
});
