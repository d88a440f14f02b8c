// A webhook delivery's attempts as jobs on the queue: what services enqueue (a new delivery, a retry,
// a replay, a test event) and jobs/webhook-delivery.ts works. Below both, so neither imports the other's
// layer the wrong way.
import type { JobQueue } from "../../infrastructure/job-queue";

export const ATTEMPT_JOB = "webhook-attempt";

/** After a rotation, the previous secret keeps signing this long. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface AttemptData {
  deliveryId: string;
  number: number;
}

/** Enqueues attempt `number` of a delivery, once whatever the callers. */
export function enqueueAttempt(jobs: JobQueue, deliveryId: bigint, number: number, at?: Date) {
  const data: AttemptData = { deliveryId: String(deliveryId), number };
  return jobs.enqueue(ATTEMPT_JOB, data, { key: `${deliveryId}:${number}`, startAfter: at, retryLimit: 5, retryDelaySeconds: 10, retryBackoff: true });
}

/** The webhook-id of an event: the same for every attempt and replay of it, to every endpoint. */
export const messageIdOf = (eventId: bigint) => `msg_${eventId}`;
