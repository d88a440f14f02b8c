// The built-in tools a run's model can call, as AI SDK tools. AskUserQuestion has no execute: the
// loop stops at it and the run waits for /answer. Which tools a run gets follows the agent's toggles,
// the run's overrides and disabled_builtin_tools.
import { tool, zodSchema, type ToolSet } from "ai";
import { z } from "zod";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { insertMemory, listMemories } from "../repositories/memories";
import { listRuns } from "../repositories/runs";
import type { Mailer } from "../services/mailer";
import { CalculatorError, evaluateExpression } from "./calculator";

export interface ToolContext {
  prisma: PrismaClient;
  mailer: Mailer;
  accountId: number;
  /** The account's email (where report_issue writes), read when asked. */
  accountEmail(): Promise<string>;
  endUserId: number | null;
  agentId: number;
  runId: number;
}

export const ASK_USER_QUESTION = "AskUserQuestion";

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
  taskHistory: zodSchema(z.object({ limit: z.number().int().min(1).max(20).default(5) })),
  reportIssue: zodSchema(z.object({ summary: z.string().max(500), details: z.string().max(5_000).optional() })),
};

const askUserQuestion = tool({
  description:
    "Ask the person one or more clarifying questions, each with options to choose from. The run waits for the answer.",
  inputSchema: inputs.askUserQuestion,
});

function calculator() {
  return tool({
    description: "Evaluate an arithmetic expression exactly (+ - * / % ^ and parentheses).",
    inputSchema: inputs.calculator,
    execute: async ({ expression }) => {
      try {
        return { result: evaluateExpression(expression) };
      } catch (error) {
        if (error instanceof CalculatorError) return { error: error.message };
        throw error;
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

function taskHistory(context: ToolContext) {
  return tool({
    description: "List this agent's recent runs in the same scope with their status and outcome.",
    inputSchema: inputs.taskHistory,
    execute: async ({ limit }) => {
      const runs = await listRuns(
        context.prisma,
        { accountId: context.accountId, endUserId: context.endUserId },
        { limit, agentId: context.agentId, allEndUsers: false },
      );
      return runs
        .filter((run) => run.id !== context.runId)
        .slice(0, limit)
        .map((run) => ({ id: run.id, status: run.status, created_at: run.createdAt.toISOString(), output: run.output }));
    },
  });
}

function reportIssue(context: ToolContext) {
  return tool({
    description: "Report a problem with the platform or a tool to the account owner.",
    inputSchema: inputs.reportIssue,
    execute: async ({ summary, details }) => {
      await context.mailer.send(context.prisma, {
        accountId: context.accountId,
        to: await context.accountEmail(),
        subject: `Agent reported an issue: ${summary}`,
        text: `Run ${context.runId} reported:\n\n${summary}\n\n${details ?? ""}`,
        kind: "agent_issue",
      });
      return { reported: true };
    },
  });
}

/** The tools for one run, keyed by the names the model sees. */
export function builtInToolSet(context: ToolContext, enabled: ReadonlySet<string>): ToolSet {
  const tools: ToolSet = {};
  if (enabled.has("memory")) tools.memory = memory(context);
  if (enabled.has("task_history")) tools.task_history = taskHistory(context);
  if (enabled.has("report_issue")) tools.report_issue = reportIssue(context);
  if (enabled.has(ASK_USER_QUESTION)) tools[ASK_USER_QUESTION] = askUserQuestion;
  if (enabled.has("calculator")) tools.calculator = calculator();
  // task_setup arrives with tasks: offering it before tasks exist would promise what cannot happen.
  return tools;
}
