// Lessons of a task (GET/DELETE /tasks/{id}/lessons, POST /tasks/{id}/lessons:clear), the save_lesson
// tool and the lessons in later runs' system prompts, the task_setup and task_history tools, and the
// weekly review task enable_self_improvement schedules.
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LESSON_CAPACITY } from "@inlay/core/schemas/lessons";
import { createSimModel } from "@/server/platform/models/sim";
import { SELF_REVIEW_CRON, SELF_REVIEW_TASK_NAME } from "@/server/platform/services/agents/self-improvement";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account; // require_end_user_id off
let other: Account;
let agentU1: number; // u1's agent

/** The system prompt of every model call, in order. */
const systemPrompts: string[] = [];

function recordingSim(): LanguageModelV3 {
  const sim = createSimModel();
  const record = (options: LanguageModelV3CallOptions) => {
    systemPrompts.push(options.prompt.flatMap((message) => (message.role === "system" ? [message.content] : [])).join("\n"));
  };
  return {
    ...sim,
    doGenerate: (options) => (record(options), sim.doGenerate(options)),
    doStream: (options) => (record(options), sim.doStream(options)),
  };
}

const prisma = () => platform.database.prisma;

beforeAll(async () => {
  platform = await startPlatform({ languageModel: recordingSim });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  agentU1 = (await platform.call("/agents", { key: account.key, body: { name: "Worker", user_id: "u1" } })).body.id;
});
afterAll(() => platform.close());

async function newTask(instructions: string, userId = "u1", agentId = agentU1) {
  const { status, body } = await platform.call("/tasks", {
    key: account.key,
    query: { user_id: userId },
    body: { teammate_id: agentId, instructions, permission_mode: "autonomous" },
  });
  expect(status).toBe(201);
  return body.id as number;
}

async function runToEnd(taskId: number, body: Record<string, unknown> = {}, userId = "u1") {
  const started = await platform.call(`/tasks/${taskId}/runs`, { key: account.key, query: { user_id: userId }, body: { stream: false, ...body } });
  expect(started.status).toBe(200);
  return platform.waitForRun(account.key, started.body.id, ["completed", "failed"], { user_id: userId });
}

const lessons = (taskId: number, options: { key?: string | null; userId?: string } = {}) =>
  platform.call(`/tasks/${taskId}/lessons`, { key: options.key === undefined ? account.key : options.key, query: { user_id: options.userId ?? "u1" } });

const saveDirective = (content: string) => `::tool save_lesson ${JSON.stringify({ content })}`;

describe("save_lesson and the lessons in later runs", () => {
  it("saves a lesson from a task's run; the next run reads it in its system prompt and does not save it twice", async () => {
    const taskId = await newTask(saveDirective("Check the feed before summarising."));
    const first = await runToEnd(taskId);
    expect(first.status).toBe("completed");
    expect(first.output).toMatch(/^Tool save_lesson returned \{"saved":true,"id":\d+,"capacity_used":1,"capacity_limit":20\}$/);
    expect(systemPrompts.at(-1)).not.toContain("Lessons from earlier runs");

    const listed = await lessons(taskId);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      capacity_limit: LESSON_CAPACITY,
      capacity_used: 1,
      data: [{ id: expect.any(Number), content: "Check the feed before summarising.", run_id: first.id, created_at: expect.any(String) }],
    });

    const second = await runToEnd(taskId);
    expect(systemPrompts.at(-1)).toContain("## Lessons from earlier runs of this task\nNewest first.\n- Check the feed before summarising.");
    // The same lesson, written a little differently, is a duplicate.
    expect(second.output).toContain(`"saved":false,"duplicate_of":${listed.body.data[0].id}`);
    expect((await lessons(taskId)).body.capacity_used).toBe(1);
  });

  it("lists the lessons newest first in the prompt", async () => {
    const taskId = await newTask(saveDirective("Second lesson"));
    await prisma().platformTaskLesson.create({ data: { taskId, content: "First lesson" } });
    await runToEnd(taskId);
    await runToEnd(taskId);
    expect(systemPrompts.at(-1)).toContain("- Second lesson\n- First lesson");
  });

  it("refuses politely when the task's capacity is full", async () => {
    const taskId = await newTask(saveDirective("One lesson too many"));
    await prisma().platformTaskLesson.createMany({
      data: Array.from({ length: LESSON_CAPACITY }, (_, i) => ({ taskId, content: `Lesson ${i}` })),
    });
    const run = await runToEnd(taskId);
    expect(run.status).toBe("completed");
    expect(run.output).toContain(`"saved":false,"capacity_used":${LESSON_CAPACITY},"capacity_limit":${LESSON_CAPACITY}`);
    expect((await lessons(taskId)).body.capacity_used).toBe(LESSON_CAPACITY);
  });

  it("is not offered in a run of no task, nor shown in GET /agents/{id}/system-prompt", async () => {
    const started = await platform.call("/runs", {
      key: account.key,
      body: { teammate_id: agentU1, user_id: "u1", message: saveDirective("no task here"), permission_mode: "autonomous", stream: false },
    });
    const run = await platform.waitForRun(account.key, started.body.id, ["completed", "failed"], { user_id: "u1" });
    expect(run).toMatchObject({ status: "completed", output: expect.stringMatching(/^Tool save_lesson failed/) });
    const prompt = await platform.call(`/agents/${agentU1}/system-prompt`, { key: account.key, query: { user_id: "u1" } });
    expect(prompt.body.prompt).not.toContain("save_lesson");
  });
});

describe("GET /tasks/{task_id}/lessons, DELETE and lessons:clear", () => {
  let taskId: number;
  let lessonIds: number[];

  beforeAll(async () => {
    taskId = await newTask("Tidy up");
    await prisma().platformTaskLesson.createMany({ data: [{ taskId, content: "A" }, { taskId, content: "B" }, { taskId, content: "C" }] });
    lessonIds = (await lessons(taskId)).body.data.map((lesson: { id: number }) => lesson.id);
  });

  it("lists newest first", async () => {
    const { body } = await lessons(taskId);
    expect(body.data.map((lesson: { content: string }) => lesson.content)).toEqual(["C", "B", "A"]);
  });

  it("deletes one lesson and answers with the rest", async () => {
    const { status, body } = await platform.call(`/tasks/${taskId}/lessons/${lessonIds[0]}`, { key: account.key, method: "DELETE", query: { user_id: "u1" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ capacity_limit: LESSON_CAPACITY, capacity_used: 2 });
    expect(body.data.map((lesson: { content: string }) => lesson.content)).toEqual(["B", "A"]);
    const again = await platform.call(`/tasks/${taskId}/lessons/${lessonIds[0]}`, { key: account.key, method: "DELETE", query: { user_id: "u1" } });
    expect(again.status).toBe(404);
  });

  it("clears only with confirm=true", async () => {
    for (const query of [{ user_id: "u1" }, { user_id: "u1", confirm: "false" }]) {
      const refused = await platform.call(`/tasks/${taskId}/lessons:clear`, { key: account.key, method: "POST", query });
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toContain("confirm");
    }
    const bad = await platform.call(`/tasks/${taskId}/lessons:clear`, { key: account.key, method: "POST", query: { user_id: "u1", confirm: "yes" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toContain("confirm");
    expect((await lessons(taskId)).body.capacity_used).toBe(2);

    const cleared = await platform.call(`/tasks/${taskId}/lessons:clear`, { key: account.key, method: "POST", query: { user_id: "u1", confirm: "true" } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ capacity_limit: LESSON_CAPACITY, capacity_used: 0, data: [] });
    expect((await lessons(taskId)).body.data).toEqual([]);
  });

  it("keeps lessons to the task's scope: 404 for another account or end-user, 401 without a key", async () => {
    const scoped = await newTask("Scoped");
    const [lesson] = await prisma().platformTaskLesson.createManyAndReturn({ data: [{ taskId: scoped, content: "mine" }] });
    expect((await lessons(scoped, { key: other.key })).status).toBe(404);
    expect((await lessons(scoped, { userId: "u2" })).status).toBe(404);
    expect((await lessons(scoped, { key: null })).status).toBe(401);
    for (const [key, userId] of [
      [other.key, "u1"],
      [account.key, "u2"],
    ] as const) {
      const deleted = await platform.call(`/tasks/${scoped}/lessons/${lesson!.id}`, { key, method: "DELETE", query: { user_id: userId } });
      expect(deleted.status).toBe(404);
      const cleared = await platform.call(`/tasks/${scoped}/lessons:clear`, { key, method: "POST", query: { user_id: userId, confirm: "true" } });
      expect(cleared.status).toBe(404);
    }
    expect((await platform.call(`/tasks/${scoped}/lessons:clear`, { key: null, method: "POST", query: { confirm: "true" } })).status).toBe(401);
    // Another task's lesson id is not this task's.
    const elsewhere = await newTask("Elsewhere");
    const misplaced = await platform.call(`/tasks/${elsewhere}/lessons/${lesson!.id}`, { key: account.key, method: "DELETE", query: { user_id: "u1" } });
    expect(misplaced.status).toBe(404);
    expect((await lessons(scoped)).body.capacity_used).toBe(1);
  });
});

describe("task_setup and task_history", () => {
  it("creates a task in the run's own scope, for the run's agent, with its schedule", async () => {
    const setup = JSON.stringify({ action: "create", instructions: "Water the plants", schedule: "0 8 * * *", schedule_timezone: "Europe/Paris" });
    const taskId = await newTask(`::tool task_setup ${setup}`);
    const run = await runToEnd(taskId);
    expect(run.output).toContain('"created":true');
    const created = await prisma().platformTask.findFirstOrThrow({ where: { instructions: "Water the plants" }, include: { endUser: true, triggers: true } });
    expect(created).toMatchObject({ accountId: account.id, agentId: agentU1, endUser: { externalId: "u1" } });
    expect(created.triggers).toMatchObject([{ type: "schedule", cron: "0 8 * * *", timezone: "Europe/Paris" }]);
  });

  it("answers with the API's validation message, and updates and lists only the agent's tasks", async () => {
    const bad = await newTask(`::tool task_setup ${JSON.stringify({ action: "create", instructions: "x", schedule_timezone: "UTC" })}`);
    expect((await runToEnd(bad)).output).toContain("schedule_timezone: is only accepted with schedule");

    const target = await newTask("Old instructions");
    const update = await newTask(`::tool task_setup ${JSON.stringify({ action: "update", task_id: target, instructions: "New instructions" })}`);
    expect((await runToEnd(update)).output).toContain('"updated":true');
    expect((await prisma().platformTask.findUniqueOrThrow({ where: { id: target } })).instructions).toBe("New instructions");

    // u2's task is out of the run's scope.
    const agentU2 = (await platform.call("/agents", { key: account.key, body: { name: "Other", user_id: "u2" } })).body.id;
    const foreign = await newTask("Not yours", "u2", agentU2);
    const poke = await newTask(`::tool task_setup ${JSON.stringify({ action: "update", task_id: foreign, instructions: "Hijacked" })}`);
    expect((await runToEnd(poke)).output).toContain(`task ${foreign} not found`);
    expect((await prisma().platformTask.findUniqueOrThrow({ where: { id: foreign } })).instructions).toBe("Not yours");

    const list = await newTask(`::tool task_setup {"action":"list"}`);
    const listed = (await runToEnd(list)).output as string;
    expect(listed).toContain(`"id":${target}`);
    expect(listed).not.toContain(`"id":${foreign}`);
  });

  it("is withheld when the run sets task_setup_tools false", async () => {
    const taskId = await newTask(`::tool task_setup {"action":"list"}`);
    expect((await runToEnd(taskId, { task_setup_tools: false })).output).toMatch(/^Tool task_setup failed/);
  });

  it("task_history lists the task's earlier runs with a short output", async () => {
    const taskId = await newTask(`::tool task_history {"limit":5}`);
    const first = await runToEnd(taskId);
    await prisma().platformRun.update({ where: { id: first.id }, data: { output: "long ".repeat(200) } });
    await runToEnd(await newTask("A run of another task, not listed"));
    const second = await runToEnd(taskId);
    const history = JSON.parse((second.output as string).replace(/^Tool task_history returned /, ""));
    expect(history).toEqual([{ id: first.id, status: "completed", created_at: expect.any(String), output: expect.stringMatching(/…$/) }]);
    expect(history[0].output.length).toBe(501);
  });
});

describe("enable_self_improvement", () => {
  const reviewTasks = (agentId: number) =>
    prisma().platformTask.findMany({ where: { agentId, name: SELF_REVIEW_TASK_NAME }, include: { triggers: true } });

  it("creates one weekly review task at creation, and not again", async () => {
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Learner", user_id: "u3", enable_self_improvement: true } })).body;
    let tasks = await reviewTasks(agent.id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ permissionMode: "autonomous", triggers: [{ type: "schedule", cron: SELF_REVIEW_CRON, timezone: "UTC", enabled: true }] });
    const listed = await platform.call("/tasks", { key: account.key, query: { user_id: "u3", teammate_id: agent.id } });
    expect(listed.body.data).toHaveLength(1);

    const patch = (on: boolean) =>
      platform.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", query: { user_id: "u3" }, body: { enable_self_improvement: on } });
    expect((await patch(true)).status).toBe(200);
    expect(await reviewTasks(agent.id)).toHaveLength(1);

    // Off stops the weekly runs (the trigger goes); on again reuses the task.
    await patch(false);
    tasks = await reviewTasks(agent.id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.triggers).toEqual([]);
    await patch(true);
    tasks = await reviewTasks(agent.id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.triggers).toHaveLength(1);
  });

  it("creates it when PATCH turns the flag on", async () => {
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Later" } })).body;
    expect(await reviewTasks(agent.id)).toHaveLength(0);
    await platform.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", body: { enable_self_improvement: true } });
    const tasks = await reviewTasks(agent.id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ endUserId: null, triggers: [{ cron: SELF_REVIEW_CRON }] });
  });
});
