// Run statuses and question names shared by the platform, the client and the chat. No zod here: the
// chat's browser bundle imports these, and must not carry the run contracts with them. Every set of
// statuses lives here, one name per meaning; RunStatus (runs.ts) is the enum of RUN_STATUSES.

/** Every status a run can have (the RunStatus enum's values). */
export const RUN_STATUSES = ["running", "paused", "awaiting_approval", "completed", "failed", "cancelled", "closed", "archived"] as const;
export type RunStatusName = (typeof RUN_STATUSES)[number];

/** A run that has finished: it may be replied to. */
export const TERMINAL_STATUSES = ["completed", "failed", "cancelled"] as const satisfies readonly RunStatusName[];
/** A run that will not move again by itself: finished, closed or archived. */
export const SETTLED_STATUSES = [...TERMINAL_STATUSES, "closed", "archived"] as const satisfies readonly RunStatusName[];
/** A run that is under way: running, or waiting on a person. It holds its account's place and funds. */
export const ACTIVE_STATUSES = ["running", "awaiting_approval", "paused"] as const satisfies readonly RunStatusName[];
/** An active run waiting on a person: a tool approval, or an answer (GET /runs/needs-you). */
export const WAITING_STATUSES = ["awaiting_approval", "paused"] as const satisfies readonly (typeof ACTIVE_STATUSES)[number][];
/** The active statuses in the order GET /runs lists them ahead of the rest: what waits on a person first. */
export const ATTENTION_ORDER = [...WAITING_STATUSES, "running"] as const satisfies readonly (typeof ACTIVE_STATUSES)[number][];

const isIn = (statuses: readonly string[]) => (status: string) => statuses.includes(status);
export const isTerminalStatus = isIn(TERMINAL_STATUSES);
export const isSettledStatus = isIn(SETTLED_STATUSES);
export const isActiveStatus = isIn(ACTIVE_STATUSES);

/** The built-in tool a run asks the person questions with (permission requests of kind question). */
export const ASK_USER_QUESTION = "AskUserQuestion";
/** The question a plan-mode run asks to have its plan approved (kind plan). */
export const PLAN_APPROVAL = "Plan Approval";
