// The end of a run's pass in one statement, in the usual case (its cost within its hold): the run's
// change, the metering of its last model call, its settlement, its webhook event and its last frames together
// (repositories/billing.ts, endRunWithinHold).
// The event is built before the statement, from the run as the pass last read it and the change; the
// statement writes nothing unless the row still has the values the event was built from.
import { RUN_LIFECYCLE, type RunTransitionName } from "@inlay/core/schemas/run-lifecycle";
import type { Db } from "../../repositories/db";
import type { MeteredCall, RunEnd, RunEndResult } from "../../repositories/billing";
import type { RunRow, RunUpdate } from "../../repositories/runs";
import type { NewWebhookEvent } from "../../repositories/webhook-events";
import type { NewRequest } from "../../repositories/permission-requests";
import { endRunSettled } from "../billing/billing";
import { WEBHOOK_RUN_FIELDS, type WebhookRun } from "./run-webhooks";

// What the event and the ledger entry's description (the run's model) are built from.
const BUILT_FROM: readonly string[] = [...WEBHOOK_RUN_FIELDS, "model"];

/** What ends with the run's change, each optional. */
export interface RunEndParts {
  /** Builds the run's webhook event from the run as it will be. */
  webhook?: (db: Db, row: WebhookRun) => Promise<NewWebhookEvent>;
  /** Requests for a person the run pauses on. */
  requests?: NewRequest[];
  /** The pass's last model call, not metered yet. */
  call?: MeteredCall;
  /** The pass's last frames, appended with the change (RunEnd.events). */
  events?: RunEnd["events"];
}

/**
 * Makes the run's `transition` with `data`, meters its last model call, settles it and writes its
 * webhook event, the requests it pauses on and its last frames (`parts`), in one statement when its
 * cost is within its hold. `latest` is the run as last read; any of its values the event is built from
 * that changed since (a permission mode switched mid-run) only sends the caller the long way (`ended`
 * undefined, nothing written, the call not metered), as a cost past the hold does.
 */
export async function endRunInOneStatement(
  prisma: Db,
  latest: RunRow,
  transition: RunTransitionName,
  data: RunUpdate,
  parts: RunEndParts = {},
): Promise<RunEndResult> {
  // A run that holds nothing (a plan's, or on the account's own subscription: run-funding.ts) goes
  // past its hold with any cost the balance has not settled: the statement would only add a round trip.
  if (latest.holdMicros === 0n) return { ended: undefined };
  // The transition sets the status: the event is built from the new one.
  const set = { ...data, status: RUN_LIFECYCLE[transition].to } as Record<string, unknown>;
  const changed = (field: string) => set[field] !== undefined;
  const expected = Object.fromEntries(BUILT_FROM.filter((field) => !changed(field)).map((field) => [field, latest[field as keyof RunRow]]));
  const predicted = { ...latest, ...Object.fromEntries(BUILT_FROM.filter(changed).map((field) => [field, set[field]])) } as WebhookRun;
  const event = parts.webhook ? await parts.webhook(prisma, predicted) : undefined;
  return endRunSettled(prisma, latest, {
    transition,
    data,
    webhook: event,
    expected: expected as Partial<RunRow>,
    requests: parts.requests,
    call: parts.call,
    events: parts.events,
  });
}
