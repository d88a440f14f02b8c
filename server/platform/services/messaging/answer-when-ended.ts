// Answering an inbound message (a mail, an iMessage) on its own channel once the run it started has
// ended: a durable job per message that looks at the run, waits again while it goes on (each wait
// doubling, from half a second to a minute) and gives up after a week; the channel's job then sends
// `answerText` once. Shared by entry-points/email-inbound.ts and entry-points/bridge-inbound.ts.
import { isTerminalStatus } from "@inlay/core/schemas/runs";
import type { Db } from "../../repositories/db";
import type { JobQueue } from "../../infrastructure/job-queue";
import { findRunOutcome } from "../../repositories/runs";
import { METADATA_ONLY } from "../../infrastructure/redact";

export interface AnswerJob {
  inboundId: number;
  attempt: number;
}

/** A run still going this long after its message gets no answer on the channel (it stays on the API). */
const ANSWER_WAIT_MS = 7 * 24 * 3600 * 1000;

const waitMs = (attempt: number) => Math.min(60_000, 500 * 2 ** attempt);

export function enqueueAnswer(jobs: JobQueue, jobName: string, inboundId: number, attempt = 0) {
  const data: AnswerJob = { inboundId, attempt };
  return jobs.enqueue(jobName, data, {
    key: `${inboundId}:${attempt}`,
    startAfter: attempt === 0 ? undefined : new Date(Date.now() + waitMs(attempt - 1)),
    retryLimit: 5,
    retryDelaySeconds: 5,
    retryBackoff: true,
  });
}

export type EndedRun = NonNullable<Awaited<ReturnType<typeof findRunOutcome>>>;

/**
 * The ended run a message's answer comes from, or the job's result when there is nothing to send (yet):
 * no run, a cancelled one (it answers nothing), or one still going (the next look is enqueued).
 */
export async function endedRunFor(
  prisma: Db,
  jobs: JobQueue,
  jobName: string,
  inbound: { id: number; runId: number | null; createdAt: Date },
  attempt: number,
): Promise<{ run: EndedRun } | { result: Record<string, string> }> {
  if (!inbound.runId) return { result: { skipped: "no run" } };
  const run = await findRunOutcome(prisma, inbound.runId);
  if (!run) return { result: { skipped: "run gone" } };
  if (!isTerminalStatus(run.status)) {
    if (Date.now() - inbound.createdAt.getTime() > ANSWER_WAIT_MS) return { result: { skipped: "run still going after 7 days" } };
    await enqueueAnswer(jobs, jobName, inbound.id, attempt + 1);
    return { result: { waiting: run.status } };
  }
  if (run.status === "cancelled") return { result: { skipped: "run cancelled" } };
  return { run };
}

/** What the channel says: the run's output, or why there is none. */
export function answerText(run: EndedRun, options: { withError: boolean }): string {
  if (run.status === "failed") {
    return `Sorry, I could not finish this.${options.withError && run.error ? `\n\nError: ${run.error}` : ""}`;
  }
  if (run.retention === METADATA_ONLY) return "Done. (This account keeps no run content, so the answer is not repeated here.)";
  return typeof run.output === "string" && run.output.trim() !== "" ? run.output : "Done.";
}
