// A run whose worker died must not stay `running`: any worker claims it again and resumes it from
// its last finished tool step, or ends it failed and interrupted when resuming is not safe.
// (tests/integration/platform/run-crash.postgres.test.ts and the cluster tests kill real processes.)
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealth } from "@/server/platform/health";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf, type Frame } from "../../helpers/sse";
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createSimModel, promptText, simTokens } from "@/server/platform/models/sim";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

const wordsOf = (text: string) => text.trim().split(/\s+/);
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

async function eventLog(runId: number, harness: PlatformHarness = platform, lastEventId?: string, userId?: string, key = account.key): Promise<Frame[]> {
  const response = await harness.request(`/runs/${runId}/events${userId ? `?user_id=${userId}` : ""}`, {
    headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
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

/** The sim model, recording the prompt of every call it streams. */
function recordingSim() {
  const prompts: LanguageModelV3Prompt[] = [];
  const languageModel = () => {
    const sim = createSimModel();
    return {
      ...sim,
      doStream: (options: LanguageModelV3CallOptions) => {
        prompts.push(options.prompt);
        return sim.doStream(options);
      },
    };
  };
  return { prompts, languageModel };
}

/** The text of a prompt's last message when it is the assistant's partial answer. */
const partialOf = (prompt: LanguageModelV3Prompt) => {
  const last = prompt.at(-1)!;
  return last.role === "assistant" ? last.content.map((part) => (part.type === "text" ? part.text : "")).join("") : undefined;
};

describe("a draining process (SIGTERM)", () => {
  it("hands its worker's runs back at once: other workers continue them where the stream was, twice over, without counting an attempt, every word once, billed once", async () => {
    // Three processes on one database of their own; each drain hands the run to one of the others.
    const model = recordingSim();
    const first = await startPlatform({ languageModel: model.languageModel });
    const others = [
      await startPlatform({ database: first.database, languageModel: model.languageModel }),
      await startPlatform({ database: first.database, languageModel: model.languageModel }),
    ];
    const harnesses = [first, ...others];
    try {
      const own = await first.signup({ require_end_user_id: false });
      const key = { authorization: `Bearer ${own.key}` };
      const agent = (await first.call("/agents", { key: own.key, body: { name: "Drained" } })).body;
      const created = await first.call("/runs", {
        key: own.key,
        body: { teammate_id: agent.id, message: "::delay 20\n::words 200", stream: false, permission_mode: "autonomous" },
      });
      const runId: number = created.body.id;
      const seen = await readFrames(await first.request(`/runs/${runId}/events`, { headers: key }), {
        until: (frame) => frame.data.type === "content_block_delta" && frame.data.delta.text.startsWith("echo"),
      });
      const { prisma } = first.database;
      const holder = async () => {
        const { leaseOwner } = await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } });
        const owners = await Promise.all(harnesses.map(async (harness) => (await harness.runtime()).worker!.lease.owner));
        return owners.indexOf(leaseOwner ?? "");
      };

      expect(await holder()).toBe(0);
      const drained = await first.runtime();
      drained.drain();
      // A stream opened now is refused with a retryable answer, not an empty 200 ("the run is over").
      const refused = await first.request(`/runs/${runId}/events`, { headers: key });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await refused.json()).error).toMatchObject({ type: "api_error", error_code: "instance_draining" });
      await drained.worker!.idle();
      // Handed back mid-run, not run to its end; its wake-up has another process claim it (the lease,
      // lapsed under its owner's name, is not waited for).
      expect((await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe("running");
      await expect.poll(holder, { timeout: 5_000 }).toBeGreaterThan(0);
      const secondIndex = await holder();
      const second = harnesses[secondIndex]!;
      const third = harnesses[3 - secondIndex]!;

      // The second holder is drained in turn once it has said more: the third finishes the run.
      await expect.poll(async () => (await prisma.platformRunEvent.count({ where: { runId } })) > seen.length + 20).toBe(true);
      (await second.runtime()).drain();
      await (await second.runtime()).worker!.idle();

      await expect.poll(async () => (await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } })).status, { timeout: 20_000 }).toBe("completed");
      const run = (await third.call(`/runs/${runId}`, { key: own.key })).body;
      expect(wordsOf(run.output)).toHaveLength(200);
      expect(run.metadata?.interrupted).toBeUndefined();
      // Hand-backs are not attempts: the resumes counted none.
      expect((await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } })).resumeAttempts).toBe(0);

      const frames = await eventLog(runId, third, undefined, undefined, own.key);
      expect(textOf(frames)).toBe(run.output);
      const resumed = frames.filter((frame) => frame.data.resumed);
      expect(resumed).toHaveLength(2);
      // Each resumed pass asked its model to continue after the text readers already had (the log
      // before its resume frame), not to answer from the start: three calls, one per pass.
      expect(model.prompts).toHaveLength(3);
      expect(partialOf(model.prompts[0]!)).toBeUndefined();
      for (const [index, notice] of resumed.entries()) {
        // Nothing dropped either time: the text already said stayed and was not said again.
        expect(notice.data).toMatchObject({ type: "run_status", status: "running", attempt: 0 });
        expect(notice.data.discard_after).toBe(frames[frames.indexOf(notice) - 1]!.id);
        const delivered = textOf(frames.slice(0, frames.indexOf(notice)));
        expect(delivered.length).toBeGreaterThan(0);
        expect(partialOf(model.prompts[index + 1]!)).toBe(delivered);
      }
      // The reader of the first instance resumes where it was and gets only what is new.
      const after = await eventLog(runId, third, seen.at(-1)!.id!, undefined, own.key);
      expect(textOf(seen) + textOf(after)).toBe(run.output);

      // Billed once: the calls cut by a hand-back reported no usage and were not metered; the last
      // pass's call was, once, with the delivered text as prompt and only what it said as output.
      const usage = await prisma.platformUsageRecord.findMany({ where: { runId } });
      expect(usage).toHaveLength(1);
      const last = model.prompts[2]!;
      const said = textOf(frames.slice(frames.indexOf(resumed[1]!)));
      expect(usage[0]).toMatchObject({ inputTokens: simTokens(promptText(last).length), outputTokens: simTokens(said.length) });
      const row = await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } });
      expect({ input: row.inputTokens, output: row.outputTokens, cost: row.costMicros }).toEqual({
        input: usage[0]!.inputTokens,
        output: usage[0]!.outputTokens,
        cost: usage[0]!.costMicros,
      });
      expect(row.costMicros).toBeGreaterThan(0n);
      // The account's ledger charged the run its cost once.
      const debits = await prisma.platformBalanceTransaction.findMany({ where: { runId, type: "debit" } });
      expect(debits.reduce((sum, debit) => sum - debit.amountMicros, 0n)).toBe(row.costMicros);
    } finally {
      // The first owns the database: it goes last.
      for (const harness of [...others, first]) await harness.close();
    }
  });

  it("ends its open run streams and answers /readyz 503", async () => {
    const harness = await startPlatform({ database: platform.database, role: "all" });
    try {
      const agent = (await harness.call("/agents", { key: account.key, body: { name: "Streams end" } })).body;
      const created = await harness.call("/runs", {
        key: account.key,
        body: { teammate_id: agent.id, message: "::delay 50\n::words 200", stream: false, permission_mode: "autonomous" },
      });
      const stream = await harness.request(`/runs/${created.body.id}/events`, { headers: auth() });
      // Drained once the stream is under way: its first words have come.
      let streaming!: () => void;
      const underWay = new Promise<void>((resolve) => (streaming = resolve));
      const reading = readFrames(stream, {
        until: (frame) => {
          if (frame.data.type === "content_block_delta") streaming();
          return frame.data.type === "done";
        },
      });
      await underWay;
      (await harness.runtime()).drain();
      // The stream ended without its done frame: the client resumes elsewhere with Last-Event-ID.
      const frames = await reading;
      expect(frames.length).toBeGreaterThan(0);
      expect(frames.some((frame) => frame.data.type === "done")).toBe(false);
      const health = createHealth({ database: async () => harness.database, runtime: harness.runtime }, "all");
      const ready = (await health.answer(new Request("http://platform.test/readyz")))!;
      expect(ready.status).toBe(503);
      expect((await ready.json()).checks).toMatchObject({
        runtime: { ok: false, error: "draining: the process is stopping" },
        worker: { ok: false, error: "stopping: it claims no more runs" },
      });
    } finally {
      await harness.close();
    }
  });
});
