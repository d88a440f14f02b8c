// client.tasks: /tasks (saved jobs for one agent), their runs, their triggers and each trigger's fires;
// client.triggers: GET /triggers across tasks. user_id goes in the body of POST /tasks, POST
// /tasks/{id}/runs and POST /tasks/{id}/triggers (the spec lists it there) and in the query elsewhere.
import { collect, type PagePromise } from "../pagination";
import type { RunStream } from "../streaming";
import type { RequestOptions } from "../transport";
import type {
  Page,
  Task,
  TaskCreateParams,
  TaskLessons,
  TaskListParams,
  TaskRunCreateParams,
  TaskUpdateParams,
  TaskWebhook,
  TaskWebhookUpdateParams,
  Trigger,
  TriggerCreateParams,
  TriggerFire,
  TriggerFireListParams,
  TriggerListParams,
  TriggerUpdateParams,
} from "../types";
import { Resource, segment } from "./resource";
import { Runs, type CreatedRun } from "./runs";

const taskPath = (taskId: number) => `/tasks/${segment(taskId)}`;
const triggerPath = (taskId: number, triggerId: string) => `${taskPath(taskId)}/triggers/${segment(triggerId)}`;

/** GET /triggers pages by `<task_id>:<trigger_id>`, not by a numeric id. */
const triggerCursor = (trigger: Trigger) => `${trigger.task_id}:${trigger.id}`;

export class TaskTriggers extends Resource {
  /** POST /tasks/{task_id}/triggers: a schedule (exactly one of cron, interval_seconds, run_at). */
  create(taskId: number, params: TriggerCreateParams, options?: RequestOptions): Promise<Trigger> {
    return this.transport.json({ method: "POST", path: `${taskPath(taskId)}/triggers`, body: params, userId: "body" }, options);
  }

  /** GET /tasks/{task_id}/triggers: all the task's triggers, oldest first, in one page (not paged). */
  list(taskId: number, options?: RequestOptions): Promise<Page<Trigger>> {
    return this.transport.json({ method: "GET", path: `${taskPath(taskId)}/triggers`, userId: "query" }, options);
  }

  /** PATCH /tasks/{task_id}/triggers/{trigger_id}: `enabled: false` pauses, true resumes. */
  update(taskId: number, triggerId: string, params: TriggerUpdateParams, options?: RequestOptions): Promise<Trigger> {
    return this.transport.json({ method: "PATCH", path: triggerPath(taskId, triggerId), body: params, userId: "query" }, options);
  }

  /** DELETE /tasks/{task_id}/triggers/{trigger_id}: its fires go with it. */
  async delete(taskId: number, triggerId: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: triggerPath(taskId, triggerId), userId: "query" }, options);
  }

  /** GET /tasks/{task_id}/triggers/{trigger_id}/fires (extension): each due time and what came of it, newest first. */
  fires(taskId: number, triggerId: string, params?: TriggerFireListParams, options?: RequestOptions): PagePromise<TriggerFire> {
    return this.paged({ path: `${triggerPath(taskId, triggerId)}/fires`, userId: "query" }, params, options);
  }
}

export class Tasks extends Resource {
  readonly triggers = new TaskTriggers(this.transport);
  // Task runs are runs: the same Idempotency-Key, retries and stream handling as runs.create.
  private readonly runs = new Runs(this.transport);

  /** POST /tasks: `schedule` (cron) and `schedule_timezone` add its schedule trigger in the same step. */
  create(params: TaskCreateParams, options?: RequestOptions): Promise<Task> {
    return this.transport.json({ method: "POST", path: "/tasks", body: params, userId: "body" }, options);
  }

  /** GET /tasks: one page (oldest first), or every task when iterated. */
  list(params?: TaskListParams, options?: RequestOptions): PagePromise<Task> {
    return this.paged({ path: "/tasks", userId: "query" }, params, options);
  }
  listAll(params?: TaskListParams, options?: RequestOptions): Promise<Task[]> {
    return collect(this.list(params, options));
  }

  /** GET /tasks/{task_id} */
  get(taskId: number, options?: RequestOptions): Promise<Task> {
    return this.transport.json({ method: "GET", path: taskPath(taskId), userId: "query" }, options);
  }

  /** PATCH /tasks/{task_id}: omitted = unchanged; null clears expected_output and goals. */
  update(taskId: number, params: TaskUpdateParams, options?: RequestOptions): Promise<Task> {
    return this.transport.json({ method: "PATCH", path: taskPath(taskId), body: params, userId: "query" }, options);
  }

  /** DELETE /tasks/{task_id}: its triggers and lessons go; its runs stay (with their task_id). */
  async delete(taskId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: taskPath(taskId), userId: "query" }, options);
  }

  /** POST /tasks/{task_id}/runs: like runs.create (streams by default; `stream: false` answers the run). */
  run(taskId: number, params: TaskRunCreateParams & { stream: false }, options?: RequestOptions): Promise<CreatedRun>;
  run(taskId: number, params?: TaskRunCreateParams & { stream?: true }, options?: RequestOptions): Promise<RunStream>;
  run(taskId: number, params: TaskRunCreateParams = {}, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.runs.startTaskRun(taskId, params, options);
  }

  /** GET /tasks/{task_id}/lessons: what the task's runs learned, carried into its next runs. */
  lessons(taskId: number, options?: RequestOptions): Promise<TaskLessons> {
    return this.transport.json({ method: "GET", path: `${taskPath(taskId)}/lessons`, userId: "query" }, options);
  }

  /** DELETE /tasks/{task_id}/lessons/{lesson_id}: the lessons left. */
  deleteLesson(taskId: number, lessonId: number, options?: RequestOptions): Promise<TaskLessons> {
    return this.transport.json({ method: "DELETE", path: `${taskPath(taskId)}/lessons/${segment(lessonId)}`, userId: "query" }, options);
  }

  /** POST /tasks/{task_id}/lessons:clear: every lesson goes (the platform asks for confirm=true). */
  clearLessons(taskId: number, options?: RequestOptions): Promise<TaskLessons> {
    return this.transport.json({ method: "POST", path: `${taskPath(taskId)}/lessons:clear`, query: { confirm: true }, userId: "query" }, options);
  }

  /** POST /tasks/{task_id}/webhook: a URL that runs the task; webhook_url is in this answer only. */
  enableWebhook(taskId: number, options?: RequestOptions): Promise<TaskWebhook> {
    return this.transport.json({ method: "POST", path: `${taskPath(taskId)}/webhook`, userId: "query" }, options);
  }

  /** PATCH /tasks/{task_id}/webhook: `enabled` false pauses, true resumes. */
  updateWebhook(taskId: number, params: TaskWebhookUpdateParams, options?: RequestOptions): Promise<TaskWebhook> {
    return this.transport.json({ method: "PATCH", path: `${taskPath(taskId)}/webhook`, body: params, userId: "query" }, options);
  }

  /** DELETE /tasks/{task_id}/webhook */
  async deleteWebhook(taskId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `${taskPath(taskId)}/webhook`, userId: "query" }, options);
  }
}

export class TriggersResource extends Resource {
  /** GET /triggers: every trigger of the scope by task then trigger id; pages by `<task_id>:<trigger_id>`. */
  list(params?: TriggerListParams, options?: RequestOptions): PagePromise<Trigger> {
    return this.paged({ path: "/triggers", userId: "query" }, params, options, triggerCursor);
  }
  listAll(params?: TriggerListParams, options?: RequestOptions): Promise<Trigger[]> {
    return collect(this.list(params, options));
  }
}
