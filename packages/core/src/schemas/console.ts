// Contracts of the console's platform-facing procedures (agents, runs, memories, permissions, usage),
// shared by the tRPC routers and the console forms.
import { z } from "zod";
import { ASK_USER_QUESTION } from "./run-constants";
import { RunStatus } from "./runs";

/** Built-in tools an agent can be given (GET /built-in-tools); the others are withheld from its copies. */
export const AGENT_TOOLS = [
  { name: "memory", label: "Memory (remembers facts about the member)" },
  { name: "task_history", label: "Task history" },
  { name: ASK_USER_QUESTION, label: "Ask the member questions" },
  { name: "calculator", label: "Calculator" },
  { name: "report_issue", label: "Report an issue" },
  { name: "task_setup", label: "Task setup" },
] as const;
export type AgentToolName = (typeof AGENT_TOOLS)[number]["name"];
const agentToolNames = AGENT_TOOLS.map((tool) => tool.name) as [AgentToolName, ...AgentToolName[]];

export const permissionModes = ["autonomous", "approval", "plan"] as const;

export const tenantAgentInput = z.object({
  name: z.string().trim().min(1, { message: "Enter a name." }).max(100, { message: "Use at most 100 characters." }),
  instructions: z.string().max(20_000, { message: "Use at most 20,000 characters." }),
  model: z
    .string()
    .trim()
    .max(255, { message: "Use at most 255 characters." })
    .nullable()
    .transform((value) => (value === "" ? null : value)),
  permissionMode: z.enum(permissionModes, { message: "Choose autonomous, approval or plan." }),
  tools: z.array(z.enum(agentToolNames)).max(AGENT_TOOLS.length),
});
export type TenantAgentInput = z.input<typeof tenantAgentInput>;

/** The key a live tenant agent's name is unique by in its tenant (the unique index on tenant_id, name_key). */
export const agentNameKey = (name: string) => name.trim().toLowerCase();

export const agentScope = z.enum(["tenant", "personal"]);

export const idInput = z.object({ id: z.uuid() });
export const runIdInput = z.object({ runId: z.number().int().positive() });

export const runMessage = z
  .string()
  .trim()
  .min(1, { message: "Write a message." })
  .max(100_000, { message: "Use at most 100,000 characters." });

export const runCreateInput = z.object({ agentId: z.uuid(), message: runMessage });
export const runReplyInput = z.object({ runId: z.number().int().positive(), message: runMessage });
export const runListInput = z.object({
  agentId: z.uuid().optional(),
  limit: z.number().int().min(1).max(100).default(20),
  startingAfter: z.number().int().positive().optional(),
});
export const runAnswerInput = z.object({
  runId: z.number().int().positive(),
  answers: z.record(z.string().max(2_000), z.string().max(2_000)),
});
export const runApproveInput = z.object({
  runId: z.number().int().positive(),
  requestId: z.string().min(1).max(200),
  decision: z.enum(["allow", "deny"]),
  remember: z.boolean().optional(),
});

export const usageRangeInput = z.object({ days: z.number().int().min(1).max(366).default(30) });

// --- Answers of the console procedures (their tRPC .output) --------------------------------------------

export const TenantAgentView = z.object({
  id: z.string(),
  scope: agentScope,
  name: z.string(),
  instructions: z.string(),
  model: z.string().nullable(),
  permissionMode: z.enum(permissionModes),
  tools: z.array(z.string()),
  version: z.number().int(),
  canEdit: z.boolean(),
  updatedAt: z.string(),
});
export const TenantAgentList = z.object({
  agents: z.array(TenantAgentView),
  canCreateTenant: z.boolean(),
  canCreatePersonal: z.boolean(),
  allowPersonalAgents: z.boolean(),
});
export const PersonalAgentsSetting = z.object({ allow: z.boolean() });

/** A member's run as the console lists it (the platform's run, with the framework's agent id). */
export const ConsoleRun = z.object({
  id: z.number().int(),
  agentId: z.string().nullable(),
  status: RunStatus,
  output: z.string().nullable(),
  preview: z.string().nullable(),
  error: z.string().nullable(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), costUsd: z.string() }),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export const ConsoleRunPage = z.object({ runs: z.array(ConsoleRun), hasMore: z.boolean() });

/** Answers of deletes of the platform's integer-id objects (memories, grants). */
export const IntIdOutput = z.object({ id: z.number().int() });
export const MemoryView = z.object({ id: z.number().int(), content: z.string(), createdAt: z.string() });
export const GrantView = z.object({ id: z.number().int(), tool: z.string(), createdAt: z.string() });

export const TenantUsage = z.object({
  period: z.string(),
  members: z.array(
    z.object({
      userId: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: z.enum(["member", "admin"]),
      runs: z.number().int(),
      costMicros: z.number().int(),
      cap: z.object({ runsPerMonth: z.number().int().nullable(), costPerMonthCents: z.number().int().nullable() }),
      platform: z
        .object({ runs: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int(), costUsd: z.string() })
        .nullable(),
    }),
  ),
  days: z.array(
    z.object({ date: z.string(), totalTokens: z.number(), costMicros: z.number().int(), members: z.record(z.string(), z.number()) }),
  ),
});

export type TenantAgentView = z.infer<typeof TenantAgentView>;
