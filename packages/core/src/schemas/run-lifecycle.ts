// The run lifecycle: every change of a run's status is one of these named transitions, with the
// statuses it may leave, the one it reaches and the webhook event written with it. The repositories
// take a transition's name, never a status (server/platform/repositories/runs.ts), so this table is the
// only place a run's status changes (tests/unit/platform/run-lifecycle.test.ts holds it to the spec's
// table and to the code). It lives beside the statuses (run-constants.ts) because repositories, services
// and the run engine all read it. No zod here, as in run-constants.ts.
import { ACTIVE_STATUSES, type RunStatusName, TERMINAL_STATUSES } from "./run-constants";
import type { WebhookEventType } from "./webhooks";

export interface RunTransition {
  /** The statuses the run may be in; in any other the change is not made (a lost race, or a 409). */
  readonly from: readonly RunStatusName[];
  readonly to: RunStatusName;
  /** The webhook event written with the change; null for a run that just goes on. */
  readonly event: WebhookEventType | null;
}

export const RUN_LIFECYCLE = {
  /** A new run (POST /runs and every other start): it has no status before. */
  start: { from: [], to: "running", event: "run.started" },
  /** A pass stops on requests for a person: a tool approval, a question, a plan to approve. */
  pause: { from: ["running"], to: "awaiting_approval", event: "run.awaiting_input" },
  /** The last pending request of a paused run is settled (approve, answer, an app connected): it goes on. */
  proceed: { from: ["awaiting_approval"], to: "running", event: null },
  /** A pass ends with the model's answer. */
  complete: { from: ["running"], to: "completed", event: "run.completed" },
  /** A pass ends with an error. */
  fail: { from: ["running"], to: "failed", event: "run.failed" },
  /** Its worker died and doing its step again could repeat a side effect, or it was resumed too often. */
  interrupt: { from: ["running"], to: "failed", event: "run.failed" },
  /** Its worker died: another worker resumes it from its checkpoint, and it stays running. */
  recover: { from: ["running"], to: "running", event: null },
  /** POST /runs/<run_id>/cancel while it is active; a finished run gets 409. */
  cancel: { from: ACTIVE_STATUSES, to: "cancelled", event: "run.cancelled" },
  /** A reply to a finished run: it runs again on the new message. */
  reply: { from: TERMINAL_STATUSES, to: "running", event: "run.message_received" },
} as const satisfies Record<string, RunTransition>;

export type RunTransitionName = keyof typeof RUN_LIFECYCLE;
