// enable_self_improvement: the agent's weekly review task. Turning the flag on (at creation or by PATCH)
// gives the agent one review task, in the agent's scope, with a weekly schedule trigger; turning it off
// removes that trigger and keeps the task and its lessons, so turning it on again reuses the task.
import type { Db } from "../../repositories/db";
import type { JobQueue } from "../../infrastructure/job-queue";
import { enqueueFire } from "../tasks/trigger-fires";
import type { AgentRow } from "../../repositories/agents";
import { deleteTrigger, listTaskTriggers } from "../../repositories/task-triggers";
import { createTask, findAgentTaskNamed } from "../../repositories/tasks";
import type { DataContext } from "../../infrastructure/hot-cache";
import { insertTaskScheduleTrigger } from "../tasks/task-triggers";

/** The review task is found by its agent and this name: renaming it makes it an ordinary task. */
export const SELF_REVIEW_TASK_NAME = "Weekly self-review";
/** Mondays at 09:00 UTC. */
export const SELF_REVIEW_CRON = "0 9 * * 1";
export const SELF_REVIEW_TIMEZONE = "UTC";

export const SELF_REVIEW_INSTRUCTIONS = [
  "Review your recent work and learn from it.",
  '1. Read your recent runs with task_history ({"of": "agent", "limit": 20}): what failed, what was slow, what the person had to correct.',
  "2. For each thing worth remembering, save one short, general lesson with save_lesson; give task_id to save it for the task it concerns, so that task's next runs read it.",
  "3. Where a task's instructions caused the trouble, fix them with task_setup (action update).",
  "Finish with a short summary of what you changed.",
].join("\n");

type Context = DataContext & { jobs: JobQueue };

const scheduleTriggers = async (prisma: Db, taskId: number) =>
  (await listTaskTriggers(prisma, taskId)).filter((trigger) => trigger.type === "schedule");

/** Gives the agent its review task and weekly trigger, unless it has them already. */
export async function ensureSelfReviewTask(ctx: Context, agent: AgentRow): Promise<void> {
  const scope = { accountId: agent.accountId, endUserId: agent.endUserId };
  const existing = await findAgentTaskNamed(ctx.prisma, scope, agent.id, SELF_REVIEW_TASK_NAME);
  if (existing && (await scheduleTriggers(ctx.prisma, existing.id)).length > 0) return;
  const schedule = { cron: SELF_REVIEW_CRON, timezone: SELF_REVIEW_TIMEZONE };
  const trigger = await ctx.prisma.$transaction(async (tx) => {
    const task =
      existing ??
      (await createTask(tx as Db, scope, {
        agentId: agent.id,
        name: SELF_REVIEW_TASK_NAME,
        instructions: SELF_REVIEW_INSTRUCTIONS,
        tools: [],
        // It runs unattended: a run waiting for an approval nobody gives would learn nothing.
        permissionMode: "autonomous",
      }));
    return insertTaskScheduleTrigger(tx as Db, task, schedule);
  });
  await enqueueFire(ctx.jobs, trigger);
}

/** Stops the weekly review: its schedule trigger goes (a queued fire then finds nothing to do). */
export async function stopSelfReview(ctx: DataContext, agent: AgentRow): Promise<void> {
  const scope = { accountId: agent.accountId, endUserId: agent.endUserId };
  const task = await findAgentTaskNamed(ctx.prisma, scope, agent.id, SELF_REVIEW_TASK_NAME);
  if (!task) return;
  for (const trigger of await scheduleTriggers(ctx.prisma, task.id)) await deleteTrigger(ctx.prisma, task.id, trigger.id);
}
