// Agent templates (GET /agent-templates, POST /agents with from_template). A template brings the
// agent's instructions, role and goals, the tasks it starts with, and the questions its setup wizard
// asks (answers become memories).

export interface TemplateQuestion {
  key: string;
  label: string;
  type: "text" | "choice";
  options?: string[];
  required: boolean;
}

export interface TemplateTask {
  slug: string;
  name: string;
  instructions: string;
  /** Cron, for default tasks that recur. */
  schedule?: string;
}

export interface AgentTemplate {
  slug: string;
  name: string;
  description: string;
  logo_ref: string;
  required_integrations: string[];
  instructions: string;
  role: string;
  goals: string;
  default_tasks: TemplateTask[];
  bootstrap_tasks: TemplateTask[];
  questions: TemplateQuestion[];
}

export const AGENT_TEMPLATES: readonly AgentTemplate[] = [
  {
    slug: "customer-support",
    name: "Customer support agent",
    description: "Answers customer questions from your documentation, drafts replies and flags what needs a human.",
    logo_ref: "icon:life-buoy",
    required_integrations: [],
    instructions:
      "You answer customer questions about the product named in your memories. Be accurate and brief. " +
      "Quote the documentation when you rely on it. When you are not sure, say so and offer to escalate. " +
      "Never promise refunds, discounts or dates; escalate those to a human.",
    role: "Customer support specialist",
    goals: "Resolve questions on first reply; escalate billing, legal and angry customers quickly.",
    default_tasks: [
      {
        slug: "weekly-faq-review",
        name: "Weekly FAQ review",
        instructions: "Review this week's conversations and list the five most frequent questions with suggested answers.",
        schedule: "0 9 * * 1",
      },
    ],
    bootstrap_tasks: [
      {
        slug: "learn-the-product",
        name: "Learn the product",
        instructions: "Read the product notes in your memories and summarise what customers can and cannot do.",
      },
    ],
    questions: [
      { key: "product_name", label: "What is your product called?", type: "text", required: true },
      { key: "tone", label: "How should replies sound?", type: "choice", options: ["Friendly", "Formal", "Concise"], required: true },
      { key: "escalation_contact", label: "Who handles escalations (email or team)?", type: "text", required: false },
    ],
  },
  {
    slug: "research-analyst",
    name: "Research analyst",
    description: "Researches companies and markets, and keeps a running brief you can ask about.",
    logo_ref: "icon:search",
    required_integrations: [],
    instructions:
      "You research the topics you are given and write briefs with sources. Separate facts from estimates, " +
      "date every figure, and keep a list of open questions at the end of each brief.",
    role: "Research analyst",
    goals: "Produce briefs a busy reader can act on in five minutes.",
    default_tasks: [
      {
        slug: "monday-market-brief",
        name: "Monday market brief",
        instructions: "Summarise last week's notable news in the focus area from your memories.",
        schedule: "0 8 * * 1",
      },
    ],
    bootstrap_tasks: [
      {
        slug: "first-brief",
        name: "First brief",
        instructions: "Write a one-page brief on the focus area: key players, trends and open questions.",
      },
    ],
    questions: [
      { key: "focus_area", label: "Which market or topic should I follow?", type: "text", required: true },
      { key: "audience", label: "Who reads the briefs?", type: "choice", options: ["Executives", "Sales", "Product"], required: false },
    ],
  },
  {
    slug: "meeting-assistant",
    name: "Meeting assistant",
    description: "Turns meeting notes into decisions, action items and follow-up drafts.",
    logo_ref: "icon:calendar",
    required_integrations: [],
    instructions:
      "You turn raw meeting notes into: decisions made, action items with owners and due dates, open " +
      "questions, and a short follow-up message. Ask when an owner or date is missing instead of guessing.",
    role: "Meeting assistant",
    goals: "No action item without an owner; follow-ups sent the same day.",
    default_tasks: [
      {
        slug: "friday-open-items",
        name: "Friday open items",
        instructions: "List the action items from this week's meetings that are still open, grouped by owner.",
        schedule: "0 15 * * 5",
      },
    ],
    bootstrap_tasks: [],
    questions: [
      { key: "team_name", label: "Which team are the meetings for?", type: "text", required: true },
      { key: "follow_up_style", label: "Follow-up style", type: "choice", options: ["Bullet points", "Short paragraph"], required: false },
    ],
  },
];

export const findTemplate = (slug: string) => AGENT_TEMPLATES.find((template) => template.slug === slug);
