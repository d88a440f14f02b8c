// The platform's own skills ("platform commands" in the / picker): built-in playbooks, forced like a
// custom skill (`skill: "summarize"` or a message starting with /summarize). Agents whose
// prompt_profile is bare cannot load them (the spec: bare "cannot load the platform's own skills").
// They need no tool, so each works for any agent. A custom skill with the same slug in the run's
// scope takes its place.

export interface PlatformCommand {
  slug: string;
  name: string;
  description: string;
  body: string;
}

export const PLATFORM_COMMANDS: readonly PlatformCommand[] = [
  {
    slug: "plan",
    name: "Plan",
    description: "Write a numbered plan before acting, then follow it step by step",
    body: [
      "Before you do anything else, write a short numbered plan: the steps you will take, in order, and the tool each step needs (if any).",
      "Then carry out the plan one step at a time, saying which step you are on.",
      "If a step turns out to be wrong or impossible, say so, revise the remaining steps, and go on.",
      "End with what was done and what, if anything, is left.",
    ].join("\n"),
  },
  {
    slug: "review",
    name: "Review",
    description: "Review the given text or work critically and list the problems by severity",
    body: [
      "Review what the person gives you (text, code, a plan or a decision) as a careful, fair critic.",
      "List the problems you find, most severe first; for each, quote or point to the exact place, say why it is a problem, and propose a concrete fix.",
      "Say what is good about it in one or two sentences at most.",
      "If you find no real problem, say so plainly instead of inventing one.",
    ].join("\n"),
  },
  {
    slug: "summarize",
    name: "Summarize",
    description: "Summarize the conversation or the given text in a few bullet points",
    body: [
      "Summarize the text the person gives you or, if there is none, this conversation so far.",
      "Lead with the outcome or main point in one sentence, then at most five short bullet points with the facts that matter (names, numbers, dates, decisions).",
      "End with the open questions or next steps, if there are any.",
      "Do not add anything that is not in the source.",
    ].join("\n"),
  },
];

const bySlug = new Map(PLATFORM_COMMANDS.map((command) => [command.slug, command]));

export const findPlatformCommand = (slug: string): PlatformCommand | undefined => bySlug.get(slug);
