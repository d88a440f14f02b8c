// The system prompt an agent's model receives. GET /agents/<id>/system-prompt shows this exact text,
// and the run runtime builds its prompt with the same function, so what you read is what runs.

export interface PromptAgent {
  name: string;
  instructions: string;
  role: string | null;
  goals: string | null;
  promptProfile: "platform" | "bare";
}

export interface PromptContext {
  /** Memories of the run's scope, newest first (only when the memory tool is on). */
  memories: string[];
  /** Names of the built-in tools the agent has. */
  builtInTools: string[];
  /** Lessons of the run's task, newest first (runs of a task only; the task keeps LESSON_CAPACITY). */
  lessons?: string[];
  /** The skill the run's current request forces (services/agents/skills.ts resolveForcedSkill), if any. */
  skill?: { slug: string; name: string; body: string } | null;
}

/** How many memories the prompt carries; older ones stay reachable through the memory tool. */
export const PROMPT_MEMORY_LIMIT = 50;

export function buildSystemPrompt(agent: PromptAgent, context: PromptContext): string {
  const sections: string[] = [];
  if (agent.promptProfile === "platform") {
    sections.push(
      `You are ${agent.name}, an AI agent running on Inlay's Agent Platform. You act for the person ` +
        `you are talking with, use your tools when they help, and say plainly when you cannot do something.`,
    );
  } else {
    sections.push(`You are ${agent.name}.`);
  }
  if (agent.role) sections.push(`## Role\n${agent.role}`);
  if (agent.instructions.trim()) sections.push(`## Instructions\n${agent.instructions}`);
  if (agent.goals) sections.push(`## Goals\n${agent.goals}`);
  if (context.memories.length > 0) {
    sections.push(`## What you remember\n${context.memories.map((memory) => `- ${memory}`).join("\n")}`);
  }
  if (context.lessons && context.lessons.length > 0) {
    sections.push(
      `## Lessons from earlier runs of this task\nNewest first.\n${context.lessons.map((lesson) => `- ${lesson}`).join("\n")}`,
    );
  }
  if (context.skill) {
    const { slug, name, body } = context.skill;
    sections.push(`## Skill: ${name}\nThe person invoked the skill /${slug} for this request: follow this playbook.\n\n${body}`);
  }
  if (context.builtInTools.length > 0) {
    sections.push(`## Built-in tools\nYou can use: ${context.builtInTools.join(", ")}.`);
  }
  if (agent.promptProfile === "platform") {
    sections.push(
      "## Usage\nRuns are paid from the account's prepaid balance: work toward the answer directly, " +
        "and do not repeat tool calls whose results you already have.",
    );
  }
  return sections.join("\n\n");
}
