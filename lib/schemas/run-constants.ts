// Run statuses and question names shared by the platform, the client and the chat. No zod here: the
// chat's browser bundle imports these, and must not carry the run contracts with them.

/** A run that has finished: it may be replied to. */
export const TERMINAL_STATUSES = ["completed", "failed", "cancelled"] as const;
/** A run that will not move again by itself: finished, closed or archived. */
export const SETTLED_STATUSES = [...TERMINAL_STATUSES, "closed", "archived"] as const;
/** A run that is under way: running, or waiting on a person. It holds its account's place and funds. */
export const ACTIVE_STATUSES = ["running", "awaiting_approval", "paused"] as const;
/** The active statuses in the order GET /runs lists them ahead of the rest: what waits on a person first. */
export const ATTENTION_ORDER = ["awaiting_approval", "paused", "running"] as const satisfies readonly (typeof ACTIVE_STATUSES)[number][];
export const isTerminalStatus = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);
export const isSettledStatus = (status: string) => (SETTLED_STATUSES as readonly string[]).includes(status);

/** The built-in tool a run asks the person questions with (permission requests of kind question). */
export const ASK_USER_QUESTION = "AskUserQuestion";
/** The question a plan-mode run asks to have its plan approved (kind plan). */
export const PLAN_APPROVAL = "Plan Approval";
