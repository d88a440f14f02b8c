// The platform's own tools (GET /built-in-tools). Four are configurable per agent (enable_*) and per
// run (memory, history, task_setup_tools, feedback); any can be withheld with disabled_builtin_tools.

export interface BuiltInTool {
  name: string;
  description: string;
  category: "memory" | "history" | "task_setup" | "lessons" | "feedback" | "interaction" | "utility";
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
    name: "AskUserQuestion",
    description: "Ask the person a clarifying question with options; the run waits for the answer.",
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

export const BUILT_IN_TOOL_NAMES = new Set(BUILT_IN_TOOLS.map((tool) => tool.name));

/** Tools offered only in runs of a task: a lesson belongs to the task it was learnt in. */
export const TASK_RUN_TOOLS: ReadonlySet<string> = new Set(["save_lesson"]);

export interface AgentToolSettings {
  enableMemory: boolean | null;
  enableHistory: boolean | null;
  enableTaskSetupTools: boolean | null;
  enableFeedback: boolean | null;
  enableSelfImprovement: boolean | null;
  disabledBuiltinTools: string[];
}

/** Whether the agent gets the tool (run-level overrides come with runs). Null toggles mean on. */
export function isBuiltInToolEnabled(tool: BuiltInTool, agent: AgentToolSettings): boolean {
  if (agent.disabledBuiltinTools.includes(tool.name)) return false;
  // Self-improvement implies the memory, history and task-setup tools.
  const selfImproving = agent.enableSelfImprovement === true;
  switch (tool.agent_toggle) {
    case "enable_memory":
      return selfImproving || agent.enableMemory !== false;
    case "enable_history":
      return selfImproving || agent.enableHistory !== false;
    case "enable_task_setup_tools":
      return selfImproving || agent.enableTaskSetupTools !== false;
    case "enable_feedback":
      return agent.enableFeedback !== false;
    default:
      return true;
  }
}
