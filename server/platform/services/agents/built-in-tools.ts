// The platform's own tools (GET /built-in-tools). Four are configurable per agent (enable_*) and per
// run (memory, history, task_setup_tools, feedback); any can be withheld with disabled_builtin_tools.
// resolveBuiltInTools is the one place that decides which a run gets: the executor, the system prompt
// and GET /built-in-tools all ask it, so what the catalogue says is what a run is offered.
import { ASK_USER_QUESTION } from "@inlay/core/schemas/runs";

export interface BuiltInTool {
  name: string;
  description: string;
  category: "memory" | "history" | "task_setup" | "lessons" | "feedback" | "documents" | "interaction" | "utility";
  /** The agent field that toggles it, for the configurable four. */
  agent_toggle: "enable_memory" | "enable_history" | "enable_task_setup_tools" | "enable_feedback" | null;
  /** The run field that toggles it, for the configurable four. */
  run_toggle: "memory" | "history" | "task_setup_tools" | "feedback" | null;
}

export const BUILT_IN_TOOLS: readonly BuiltInTool[] = [
  {
    name: "memory",
    description: "Save facts about the end-user and search what was saved, across runs.",
    category: "memory",
    agent_toggle: "enable_memory",
    run_toggle: "memory",
  },
  {
    name: "task_history",
    description: "Read the outcomes of earlier runs of this agent in the same scope.",
    category: "history",
    agent_toggle: "enable_history",
    run_toggle: "history",
  },
  {
    name: "task_setup",
    description: "Create, schedule and adjust tasks for this agent in the same scope.",
    category: "task_setup",
    agent_toggle: "enable_task_setup_tools",
    run_toggle: "task_setup_tools",
  },
  {
    name: "save_lesson",
    description: "Save a lesson for the later runs of this task (runs of a task only; the task keeps a limited number).",
    category: "lessons",
    agent_toggle: null,
    run_toggle: null,
  },
  {
    name: "report_issue",
    description: "Report a problem with the platform or a tool to the account owner.",
    category: "feedback",
    agent_toggle: "enable_feedback",
    run_toggle: "feedback",
  },
  {
    name: "documents",
    description:
      "Write, read and list this agent's documents (GET /agents/{id}/documents), in the run's scope: notes, drafts and " +
      "reports that outlive the run.",
    category: "documents",
    agent_toggle: null,
    run_toggle: null,
  },
  {
    name: ASK_USER_QUESTION,
    description: "Ask the person a clarifying question with options; the run waits for the answer (interactive runs only).",
    category: "interaction",
    agent_toggle: null,
    run_toggle: null,
  },
  {
    name: "calculator",
    description: "Evaluate an arithmetic expression exactly (no code execution).",
    category: "utility",
    agent_toggle: null,
    run_toggle: null,
  },
];

export const BUILT_IN_TOOL_NAMES: ReadonlySet<string> = new Set(BUILT_IN_TOOLS.map((tool) => tool.name));

/** Tools offered only in runs of a task: a lesson belongs to the task it was learnt in. */
export const TASK_RUN_TOOLS: ReadonlySet<string> = new Set(["save_lesson"]);

/** Tools offered only in interactive runs: a reply has nobody waiting to answer (endpoints-core.md). */
export const INTERACTIVE_RUN_TOOLS: ReadonlySet<string> = new Set([ASK_USER_QUESTION]);

export interface AgentToolSettings {
  enableMemory: boolean | null;
  enableHistory: boolean | null;
  enableTaskSetupTools: boolean | null;
  enableFeedback: boolean | null;
  enableSelfImprovement: boolean | null;
  disabledBuiltinTools: string[];
}

/** What a run adds: its four toggles (null = omitted) and what kind of run it is. */
export interface RunToolSettings {
  memory: boolean | null;
  history: boolean | null;
  taskSetupTools: boolean | null;
  feedback: boolean | null;
  interactive: boolean;
  taskId: number | null;
}

const AGENT_FIELD = {
  enable_memory: "enableMemory",
  enable_history: "enableHistory",
  enable_task_setup_tools: "enableTaskSetupTools",
  enable_feedback: "enableFeedback",
} as const;

const RUN_FIELD = { memory: "memory", history: "history", task_setup_tools: "taskSetupTools", feedback: "feedback" } as const;

// Self-improvement's weekly review reads history, remembers and adjusts tasks, so it implies those three.
const IMPLIED_BY_SELF_IMPROVEMENT: ReadonlySet<string> = new Set(["enable_memory", "enable_history", "enable_task_setup_tools"]);

/**
 * Whether the tool is on for the agent, and for a run when one is given. In order:
 * disabled_builtin_tools withholds it always; the agent's enable_* (null = on; self-improvement forces
 * memory, history and task setup on); a run's toggle can only withhold (false), never grant what the
 * agent turned off, since end-user keys create runs and must not re-enable what the vendor disabled;
 * save_lesson needs a task's run and AskUserQuestion an interactive run. Without a run (GET
 * /built-in-tools) the kind-of-run conditions do not apply: they say when, not whether.
 */
export function isBuiltInToolEnabled(tool: BuiltInTool, agent: AgentToolSettings, run?: RunToolSettings): boolean {
  if (agent.disabledBuiltinTools.includes(tool.name)) return false;
  if (tool.agent_toggle !== null) {
    const implied = agent.enableSelfImprovement === true && IMPLIED_BY_SELF_IMPROVEMENT.has(tool.agent_toggle);
    if (!implied && agent[AGENT_FIELD[tool.agent_toggle]] === false) return false;
  }
  if (!run) return true;
  if (tool.run_toggle !== null && run[RUN_FIELD[tool.run_toggle]] === false) return false;
  if (TASK_RUN_TOOLS.has(tool.name) && run.taskId === null) return false;
  if (INTERACTIVE_RUN_TOOLS.has(tool.name) && !run.interactive) return false;
  return true;
}

/** The names of the tools the agent (and the run, when given) gets, in catalogue order. */
export function resolveBuiltInTools(agent: AgentToolSettings, run?: RunToolSettings): string[] {
  return BUILT_IN_TOOLS.filter((tool) => isBuiltInToolEnabled(tool, agent, run)).map((tool) => tool.name);
}
