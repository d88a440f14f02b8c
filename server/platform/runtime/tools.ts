// The built-in tools a run's model can call, as AI SDK tools. AskUserQuestion has no execute: the
// loop stops at it and the run waits for /answer. Which tools a run gets follows the agent's toggles,
// the run's overrides and disabled_builtin_tools.
import { tool, zodSchema, type ToolSet } from "ai";
import { z } from "zod";
import { DOCUMENT_MIME_TYPES, DOCUMENT_SUMMARY_MAX_CHARS, DocumentName } from "@inlay/core/schemas/agents";
import { ISSUE_DETAILS_MAX_CHARS, ISSUE_SUMMARY_MAX_CHARS } from "@inlay/core/schemas/issue-reports";
import { LESSON_MAX_CHARS } from "@inlay/core/schemas/lessons";
import { ASK_USER_QUESTION } from "@inlay/core/schemas/runs";
import { TaskCreate } from "@inlay/core/schemas/tasks";
import type { Db } from "../repositories/db";
import { PlatformError } from "../errors";
import type { JobQueue } from "../infrastructure/job-queue";
import { insertMemory, listMemories } from "../repositories/memories";
import { listRuns } from "../repositories/run-lists";
import { listAgentDocumentsForRun, readAgentDocument, writeAgentDocument } from "../services/agents/agents";
import { fileIssueReport } from "../services/account/issue-reports";
import { saveLessonFromRun } from "../services/agents/lessons";
import type { Mailer } from "../services/messaging/mailer";
import { createTask, getTask, listTasks, updateTask } from "../services/tasks/tasks";
import { CalculatorError, calculate } from "./calculator";
import type { DataContext } from "../infrastructure/hot-cache";

export interface ToolContext {
  prisma: Db;
  mailer: Mailer;
  accountId: number;
  /** The account's email (where report_issue writes), read when asked. */
  accountEmail(): Promise<string>;
  endUserId: number | null;
  agentId: number;
  runId: number;
  /** The run's end-user's user_id; null at the account level. */
  userId: string | null;
  /** The run's task; null for a run of no task. */
  taskId: number | null;
  /** What task_setup hands the task service (services/tasks/tasks.ts), as the API's routes do. */
  services: DataContext & { jobs: JobQueue };
}


// Input schemas are made once, wrapped by zodSchema: the SDK converts a schema to JSON Schema for the
// model at every step, and a Schema object keeps its conversion, where a bare zod schema (or one built
// per run) is converted again each time.
const inputs = {
  askUserQuestion: zodSchema(
    z.object({
      questions: z
        .array(
          z.object({
            question: z.string(),
            options: z.array(z.object({ label: z.string(), description: z.string().optional() })).min(1),
          }),
        )
        .min(1),
    }),
  ),
  calculator: zodSchema(z.object({ expression: z.string().max(1_000) })),
  memory: zodSchema(
    z.object({
      action: z.enum(["save", "search"]),
      content: z.string().max(10_000).optional(),
      query: z.string().max(500).optional(),
    }),
  ),
  taskHistory: zodSchema(
    z.object({
      limit: z.number().int().min(1).max(20).default(5),
      of: z
        .enum(["task", "agent"])
        .optional()
        .describe("task: runs of this run's task (the default in a task's run); agent: this agent's recent runs in the scope"),
    }),
  ),
  saveLesson: zodSchema(
    z.object({
      content: z.string().describe(`One short, reusable lesson (at most ${LESSON_MAX_CHARS} characters)`),
      task_id: z.number().int().positive().optional().describe("A task of this scope to save it for; omitted: this run's task"),
    }),
  ),
  taskSetup: zodSchema(
    z.object({
      action: z.enum(["create", "update", "list"]),
      task_id: z.number().int().positive().optional().describe("The task to update"),
      // The API's own field schemas (POST /tasks), so the tool accepts what the API accepts.
      ...TaskCreate.pick({
        name: true,
        instructions: true,
        expected_output: true,
        goals: true,
        email_notifications: true,
        schedule: true,
        schedule_timezone: true,
      }).partial().shape,
    }),
  ),
  documents: zodSchema(
    z.object({
      action: z.enum(["write", "read", "list"]),
      name: DocumentName.optional().describe("The document (write, read): letters, digits, '.', '-', '_'"),
      content: z.string().optional().describe("write: the whole new content (replaces an existing document's)"),
      summary: z.string().max(DOCUMENT_SUMMARY_MAX_CHARS).optional().describe("write: one line saying what it is"),
      mime_type: z.enum(DOCUMENT_MIME_TYPES).optional().describe("write: default text/markdown"),
    }),
  ),
  reportIssue: zodSchema(
    z.object({
      summary: z.string().trim().min(1).max(ISSUE_SUMMARY_MAX_CHARS),
      details: z.string().max(ISSUE_DETAILS_MAX_CHARS).optional(),
    }),
  ),
};

const askUserQuestion = tool({
  description:
    "Ask the person one or more clarifying questions, each with options to choose from. The run waits for the answer.",
  inputSchema: inputs.askUserQuestion,
});

/** A refusal the model reads as the tool's error (a tool-error result), not the run's end. */
function toolError(error: unknown): never {
  if (error instanceof PlatformError || error instanceof CalculatorError) throw new Error(error.message);
  throw error;
}

function calculator() {
  return tool({
    description:
      "Evaluate an arithmetic expression exactly (+ - * / % ^ and parentheses). Answers result (a number) and, when " +
      "that number is not the exact value, exact (every digit, or a fraction p/q).",
    inputSchema: inputs.calculator,
    execute: async ({ expression }) => {
      try {
        return calculate(expression);
      } catch (error) {
        return toolError(error);
      }
    },
  });
}

function documents(context: ToolContext) {
  return tool({
    description:
      "This agent's documents, kept across runs for the person you act for: write (name, content, optional summary and " +
      "mime_type; replaces a document of that name), read (name) or list.",
    inputSchema: inputs.documents,
    execute: async ({ action, name, content, summary, mime_type }) => {
      try {
        if (action === "list") return { documents: await listAgentDocumentsForRun(context.prisma, context.agentId) };
        if (name === undefined) throw new Error(`name: is required to ${action} a document`);
        if (action === "read") {
          const document = await readAgentDocument(context.prisma, context.agentId, name);
          if (!document) throw new Error(`no document named "${name}"`);
          return document;
        }
        if (content === undefined) throw new Error("content: is required to write a document");
        const written = await writeAgentDocument(
          context.prisma,
          { accountId: context.accountId, agentId: context.agentId, runId: context.runId },
          { name, content, summary, mime_type },
        );
        return { written: true, document: written };
      } catch (error) {
        return toolError(error);
      }
    },
  });
}

function memory(context: ToolContext) {
  return tool({
    description: "Save a fact about the person for later runs, or search what was saved.",
    inputSchema: inputs.memory,
    execute: async ({ action, content, query }) => {
      if (context.endUserId === null) return { error: "memory needs an end-user scope (user_id)" };
      const scope = { accountId: context.accountId, endUserId: context.endUserId };
      if (action === "save") {
        if (!content?.trim()) return { error: "content is required to save a memory" };
        const saved = await insertMemory(context.prisma, scope, content.trim(), "agent");
        return { saved: true, id: saved.id };
      }
      const rows = await listMemories(context.prisma, scope, { limit: 50 });
      const needle = (query ?? "").toLowerCase();
      return { memories: rows.filter((row) => row.content.toLowerCase().includes(needle)).map((row) => row.content) };
    },
  });
}

/** How much of a run's output task_history shows: enough to judge the outcome, not the whole text. */
const HISTORY_OUTPUT_CHARS = 500;

function shortOutput(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  const text = typeof output === "string" ? output : JSON.stringify(output);
  return text.length > HISTORY_OUTPUT_CHARS ? `${text.slice(0, HISTORY_OUTPUT_CHARS)}…` : text;
}

function taskHistory(context: ToolContext) {
  return tool({
    description:
      "List earlier runs with their status and (shortened) output: of this run's task, or of this agent in the same scope.",
    inputSchema: inputs.taskHistory,
    execute: async ({ limit, of }) => {
      const ofTask = (of ?? (context.taskId !== null ? "task" : "agent")) === "task";
      if (ofTask && context.taskId === null) return { error: 'this run belongs to no task; use of: "agent"' };
      const runs = await listRuns(
        context.prisma,
        { accountId: context.accountId, endUserId: context.endUserId },
        { limit: limit + 1, agentId: context.agentId, ...(ofTask ? { taskId: context.taskId! } : {}), allEndUsers: false },
      );
      return runs
        .filter((run) => run.id !== context.runId)
        .slice(0, limit)
        .map((run) => ({ id: run.id, status: run.status, created_at: run.createdAt.toISOString(), output: shortOutput(run.output) }));
    },
  });
}

function saveLesson(context: ToolContext) {
  return tool({
    description:
      "Save a lesson for the later runs of this task: what to do or avoid next time. Keep it short and general; " +
      "the task keeps a limited number, and the same lesson is not saved twice.",
    inputSchema: inputs.saveLesson,
    execute: ({ content, task_id }) =>
      saveLessonFromRun(
        context.prisma,
        { accountId: context.accountId, endUserId: context.endUserId },
        task_id ?? context.taskId!,
        content,
        context.runId,
      ),
  });
}

function taskSetup(context: ToolContext) {
  const scope = { accountId: context.accountId, endUserId: context.endUserId, userId: context.userId };
  const { services } = context;
  return tool({
    description:
      "Create, update or list this agent's tasks for the person you act for. create needs instructions (schedule: a " +
      "5-field cron, with schedule_timezone); update needs task_id and the fields to change; list takes nothing.",
    inputSchema: inputs.taskSetup,
    execute: async ({ action, task_id, schedule, schedule_timezone, ...fields }) => {
      try {
        if (action === "list") {
          const page = await listTasks(services, scope, { limit: 100, teammate_id: context.agentId });
          return { tasks: page.data.map((task) => ({ id: task.id, name: task.name, instructions: task.instructions })) };
        }
        if (action === "create") {
          if (fields.instructions === undefined) return { error: "instructions: is required to create a task" };
          const task = await createTask(services, scope, {
            ...fields,
            instructions: fields.instructions,
            teammate_id: context.agentId,
            schedule,
            schedule_timezone,
          });
          return { created: true, task };
        }
        if (task_id === undefined) return { error: "task_id: is required to update a task" };
        if (schedule !== undefined || schedule_timezone !== undefined) {
          return { error: "schedule: is only accepted when creating a task" };
        }
        // Only this agent's tasks: a run adjusts what it runs, not another agent's work.
        if ((await getTask(services, scope, task_id)).teammate_id !== context.agentId) {
          return { error: `task ${task_id} not found` };
        }
        return { updated: true, task: await updateTask(services, scope, task_id, fields) };
      } catch (error) {
        // The API's refusals (a task out of scope, a bad field) are the model's to read, not the run's end.
        if (error instanceof PlatformError) return { error: error.message };
        throw error;
      }
    },
  });
}

function reportIssue(context: ToolContext) {
  return tool({
    description:
      "Report a problem with the platform or a tool: it is filed for the people who run this service (and mailed to them).",
    inputSchema: inputs.reportIssue,
    execute: ({ summary, details }) =>
      fileIssueReport(
        context,
        { accountId: context.accountId, endUserId: context.endUserId, agentId: context.agentId, runId: context.runId },
        { summary, details },
      ),
  });
}

/** The tools for one run, keyed by the names the model sees. */
export function builtInToolSet(context: ToolContext, enabled: ReadonlySet<string>): ToolSet {
  const tools: ToolSet = {};
  if (enabled.has("memory")) tools.memory = memory(context);
  if (enabled.has("task_history")) tools.task_history = taskHistory(context);
  if (enabled.has("task_setup")) tools.task_setup = taskSetup(context);
  if (enabled.has("save_lesson") && context.taskId !== null) tools.save_lesson = saveLesson(context);
  if (enabled.has("report_issue")) tools.report_issue = reportIssue(context);
  if (enabled.has("documents")) tools.documents = documents(context);
  if (enabled.has(ASK_USER_QUESTION)) tools[ASK_USER_QUESTION] = askUserQuestion;
  if (enabled.has("calculator")) tools.calculator = calculator();
  return tools;
}
