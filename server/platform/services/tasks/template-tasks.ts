// The tasks an agent made `from_template` starts with: the template's default tasks (recurring ones
// with their schedule trigger) and its bootstrap tasks (a one-time trigger due at once, so each runs
// once), the ones `enabled_task_slugs` / `enabled_bootstrap_slugs` pick (null or omitted: all). They
// are written in the transaction that creates the agent, so they are seeded exactly once.
import type { Db } from "../../repositories/db";
import type { AgentRow } from "../../repositories/agents";
import type { TriggerRow } from "../../repositories/task-triggers";
import { createTask } from "../../repositories/tasks";
import type { AgentTemplate, TemplateTask } from "../agents/agent-templates";
import { insertTaskScheduleTrigger } from "./task-triggers";

const picked = (tasks: TemplateTask[], slugs: string[] | null | undefined) =>
  slugs === null || slugs === undefined ? tasks : tasks.filter((task) => slugs.includes(task.slug));

/** Inserts the picked tasks in `tx`; returns their triggers, whose fires the caller enqueues after commit. */
export async function seedTemplateTasks(
  tx: Db,
  agent: AgentRow,
  template: AgentTemplate,
  choice: { enabled_task_slugs?: string[] | null; enabled_bootstrap_slugs?: string[] | null },
): Promise<TriggerRow[]> {
  const scope = { accountId: agent.accountId, endUserId: agent.endUserId };
  const insert = (task: TemplateTask) =>
    createTask(tx, scope, {
      agentId: agent.id,
      name: task.name,
      instructions: task.instructions,
      tools: [],
      permissionMode: agent.defaultPermissionMode,
    });
  const out: TriggerRow[] = [];
  for (const task of picked(template.default_tasks, choice.enabled_task_slugs)) {
    const row = await insert(task);
    if (task.schedule) out.push(await insertTaskScheduleTrigger(tx, row, { cron: task.schedule, timezone: undefined }));
  }
  const now = new Date().toISOString();
  for (const task of picked(template.bootstrap_tasks, choice.enabled_bootstrap_slugs)) {
    out.push(await insertTaskScheduleTrigger(tx, await insert(task), { run_at: now }));
  }
  return out;
}
