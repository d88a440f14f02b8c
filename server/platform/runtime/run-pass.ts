// One pass of a run, on the worker that holds its lease (run-worker.ts claims and leases): it runs the
// agent loop (agent-loop.ts) and ends it. Every frame goes to the run's event log; a pause (tool
// approval, question, plan approval) persists the conversation and ends the pass, and /approve or /answer
// makes the run claimable again from the persisted messages. A pass stopped by a drain hands its run
// back: the lease lapses at once and another worker resumes it from its checkpoint.
import { logger } from "@/lib/logger";
import { runsEnded } from "../observability/metrics";
import { failActiveSpan } from "../observability/tracing";
import { isTerminalStatus, type RunFrame, timedFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { Db } from "../repositories/db";
import { createRequests } from "../repositories/permission-requests";
import { clearCheckpoint } from "../repositories/run-checkpoints";
import { findRunById, transitionRun, type RunRow } from "../repositories/runs";
import { handBackLease, releaseLease } from "../repositories/run-leases";
import { meterCall, settleRun, settleRunIn } from "../services/billing/billing";
import { checkBalanceCrossings } from "../services/billing/payments";
import { runWebhookEvent } from "../services/runs/run-webhooks";
import { endRunInOneStatement } from "../services/runs/run-end";
import { type EventBatch, eventBatch } from "../infrastructure/event-bus";
import { FrameSink } from "./frame-sink";
import { createCheckpointer, resumeOrFail, runTimings, waitForDatabase } from "./recovery";
import { isDatabaseUnavailable } from "../../shared/db-errors";
import { METADATA_ONLY } from "../infrastructure/redact";
import { type ExecutorDeps, type KnownReads, loop, notifyTaskRun, type PassEnd, type Resumed } from "./agent-loop";
import { fairShare } from "./fair-share";

/** The signal that says a run waits to be claimed (a new run, or one a person let go on). */
export const RUN_READY = "run-ready";

/** The reason a pass is aborted with when its worker drains: the run is handed back, not ended. */
export const HAND_BACK = "hand-back";

/** How the worker stops a pass from outside. */
export interface PassControl {
  /** Aborted when the run was cancelled or taken over elsewhere (the pass just stops), or with HAND_BACK. */
  readonly abort: AbortController;
  /**
   * Set by the pass: hands the run back at its next safe point, at once unless a tool with side
   * effects runs (then once its step is checkpointed, so the resume does not repeat it). A
   * metadata_only run cannot be continued elsewhere (its conversation is this process's): it runs on.
   */
  handBack(): void;
}

/**
 * One pass of a run this worker holds the lease of: from `running` to completed, failed, a pause, or
 * handed back. `abandoned`: the worker that held it stopped; it resumes from its checkpoint or ends
 * interrupted.
 */
export async function executePass(
  deps: ExecutorDeps,
  owner: string,
  claimed: RunRow,
  control: PassControl,
  abandoned: boolean,
  known: KnownReads = {},
): Promise<void> {
  const { prisma, bus } = deps;
  const { abort } = control;
  const runId = claimed.id;
  const { maxResumes } = runTimings(deps.config);
  // A cancel from any process lands in the database and wakes us through the bus. Our own publishes
  // (every flush) wake us too, synchronously inside publish(): those are skipped, not re-read.
  let publishingOwn = false;
  const publishOwn = (batch: EventBatch) => {
    publishingOwn = true;
    try {
      return bus.publish(runId, batch);
    } finally {
      publishingOwn = false;
    }
  };
  const unsubscribe = bus.subscribe(runId, () => {
    if (publishingOwn) return;
    findRunById(prisma, runId)
      .then((row) => {
        if (row && row.status !== "running") abort.abort();
      })
      // The next wake-up, or the lease's renewal, reads it again.
      .catch((error: unknown) => logger.warn({ err: error, runId }, "reading a run after a wake-up failed"));
  });
  const sink = new FrameSink(runId, { events: deps.events, live: deps.live, publish: publishOwn });
  let handBackWanted = false;
  const checkpointer = createCheckpointer(prisma, runId, owner, sink, {
    // A step that ran a tool with side effects is checkpointed: handing back is safe again.
    onSafe: () => {
      if (handBackWanted) abort.abort(HAND_BACK);
    },
  });
  control.handBack = () => {
    if (claimed.retention === METADATA_ONLY) return;
    handBackWanted = true;
    if (!checkpointer.state.unsafe) abort.abort(HAND_BACK);
  };
  let handedBack = false;
  // The transaction that moves the run out of running (completed, paused, failed) also ends this
  // pass: it drops the checkpoint and settles what the pass cost, so the finally below has nothing
  // left to write; an ended run also gives up its lease there. A paused run keeps its lease until its
  // last frames are written, so a person who lets it go on meanwhile (its permission_request frames
  // not yet in the log) cannot have another worker write after them: in the usual case the frames are
  // written with the pause, and the lease goes with them. A pass that ends otherwise (cancelled,
  // nothing to do) does it all in the finally.
  let passEnded = false;
  let keptLease = false;
  // Whether the account watches its balance, when the pass's settlement read it (checkBalanceCrossings).
  let watches: boolean | undefined;
  // The run as this pass last read it: what the run's webhook event is built from before the statement
  // that ends the run (the statement checks those of its values the event uses).
  let latest = claimed;
  const end: PassEnd = {
    unmetered: undefined,
    async meter() {
      const call = end.unmetered;
      end.unmetered = undefined;
      if (call) await meterCall(prisma, call);
    },
    data: (options) => {
      keptLease = options?.keepLease === true;
      return {
        ...(keptLease ? {} : { leaseOwner: null, leaseExpiresAt: null }),
        ...(checkpointer.state.saved ? { checkpoint: null } : {}),
      };
    },
    async transaction(transition, data, webhook, requests = [], last) {
      // The usual case in one statement (its own transaction): the run's change, the requests it pauses
      // on, its settlement within its hold, its webhook event, and with `last` the frames not written
      // yet. Past its hold, or when a value the event was built from changed meanwhile, nothing was
      // written and the transaction below does it all.
      const held = last ? await sink.hold() : undefined;
      // The frames that end the run are timed with its finished_at: a reader's last step ends with the run.
      const endedAt = data.finishedAt instanceof Date ? data.finishedAt : new Date();
      const frames = held && [...held, ...sink.prepare(last!.map((frame) => timedFrame(frame, endedAt)))];
      // A pause keeps its lease until its last frames are written (see above); written with the pause,
      // the lease goes with it.
      const folded = frames && keptLease ? { ...data, leaseOwner: null, leaseExpiresAt: null } : data;
      let result: Awaited<ReturnType<typeof endRunInOneStatement>>;
      try {
        result = await endRunInOneStatement(prisma, latest, transition, folded, {
          webhook,
          requests,
          call: end.unmetered,
          ...(frames ? { events: { frames: sink.forLog(frames), wake: deps.events.wake } } : {}),
        });
      } catch (error) {
        if (held) sink.release(held);
        throw error;
      }
      if (result.ended && frames) {
        keptLease = false;
        await sink.written(frames, result.appended!);
      } else if (held) sink.release(held);
      if (result.ended !== undefined) {
        if (result.ended) {
          end.unmetered = undefined;
          passEnded = true;
          watches = result.settlement.watches;
        }
        return result.ended;
      }
      await end.meter();
      const row = await prisma.$transaction(async (tx) => {
        const moved = await transitionRun(tx as Db, runId, transition, data);
        if (!moved) return moved;
        if (requests.length > 0) await createRequests(tx as Db, runId, requests);
        // Last: past the run's hold it locks the account's row until the commit. The webhook event
        // goes in the settlement's statement (one round trip less).
        const event = webhook ? await webhook(tx as Db, moved) : undefined;
        watches = (await settleRunIn(tx as Db, moved, event))?.watches;
        return moved;
      });
      if (row) {
        passEnded = true;
        if (last) sink.push(...last);
      }
      return row;
    },
  };
  let resumed: Resumed | undefined;
  // From its start until its first word, the pass is one that post-answer work waits for (fair-share.ts).
  const share = fairShare();
  try {
    if (abandoned) {
      const resume = await resumeOrFail(prisma, claimed, maxResumes);
      await bus.publish(runId);
      if (!resume.resume) return;
      resumed = resume;
    }
    // A run that was resumed changed (its conversation, turns) since the claim read it.
    const run = abandoned ? await findRunById(prisma, runId) : claimed;
    if (!run || run.status !== "running") return;
    latest = run;
    sink.metadataOnly = run.retention === METADATA_ONLY;
    // A checkpoint holds the conversation, which a metadata_only run never writes: such a run has
    // none, and one resumed elsewhere ends conversation_not_retained.
    const hooks = sink.metadataOnly ? {} : checkpointer.hooks;
    await loop(deps, run, abort.signal, sink, share, hooks, end, known, resumed);
    await sink.flush();
  } catch (error) {
    // The database went away (a restart, a failover, no connection in time): not the run's failure.
    // The pass stops and, once the database answers, hands the run back as a drain does; it resumes
    // from its checkpoint (the frames already written). A metadata_only run's conversation is this
    // process's only: it fails as before.
    if (!abort.signal.aborted && claimed.retention !== METADATA_ONLY && isDatabaseUnavailable(error)) {
      logger.warn({ runId, err: error }, "the database went away during a pass: handing the run back once it answers");
      abort.abort(HAND_BACK);
      await waitForDatabase(prisma);
    }
    // Cancelled: the cancel wrote the run's last frames; what the model was still saying is dropped.
    // Handed back: what is not written yet is dropped too; the pass that resumes says it again.
    if (abort.signal.aborted) {
      sink.drop();
      handedBack = abort.signal.reason === HAND_BACK;
      runsEnded.inc({ outcome: handedBack ? "handed_back" : "stopped" });
      // A write already under way commits before the run is handed on: the resuming pass reads the
      // log's tail, and a frame of this pass landing after it would say the same words twice.
      if (handedBack) await sink.flush().catch(() => {});
      return;
    }
    await sink.flush().catch(() => {});
    // A tool's or the model's error may quote what it was given.
    const message = sink.redactor.text(error instanceof Error ? error.message : String(error));
    logger.warn({ runId, err: sink.redactor.active ? message : error }, "run failed");
    failActiveSpan(message);
    // The outbox row commits with the status, so whoever sees the run failed also finds run.failed.
    const finishedAt = new Date();
    const failed = await end.transaction(
      "fail",
      { ...end.data(), error: message, stopReason: "error", finishedAt },
      (db, row) => runWebhookEvent(db, row, RUN_LIFECYCLE.fail.event, {}, known.reads?.userId),
    );
    if (failed) {
      runsEnded.inc({ outcome: "failed" });
      const frames: RunFrame[] = [
        { type: "run_status", status: RUN_LIFECYCLE.fail.to, error: message },
        { type: "done", completion_state: "failed", stop_reason: "error", message_count: countMessages(failed) },
      ];
      const timed = frames.map((frame) => timedFrame(frame, finishedAt));
      await bus.publish(runId, eventBatch(await deps.events.append(runId, timed), timed));
      await notifyTaskRun(deps, failed);
    }
  } finally {
    share.end();
    unsubscribe();
    // The last model call, when the pass's end did not meter it (the run was no longer running, or failed first).
    await end.meter().catch((error: unknown) => logger.error({ err: error, runId }, "metering a model call failed"));
    if (!passEnded) {
      // Only an execution that ended keeps no checkpoint (a handed-back run resumes from it); a process
      // that dies never gets here.
      if (checkpointer.state.saved && !handedBack) await clearCheckpoint(prisma, runId).catch(() => {});
      // Charge what this pass cost; a run that ended (cancelled) also gives back its hold.
      await settleRun(prisma, runId).catch((error: unknown) => logger.error({ err: error, runId }, "settling a run failed"));
    }
    // What the pass cost may have taken the balance below an auto-reload or alert threshold.
    await checkBalanceCrossings({ prisma, jobs: deps.jobs }, claimed.accountId, watches).catch((error: unknown) =>
      logger.warn({ err: error, runId }, "checking the balance thresholds failed"),
    );
    if (handedBack) {
      // The lease lapses now instead of in leaseMs: any worker that is not stopping resumes the run.
      if (await handBackLease(prisma, runId, owner).catch(() => false)) deps.signals.publish(RUN_READY, String(runId));
    } else if (!passEnded || keptLease) {
      await sink.flush().catch(() => {});
      // Let go of the run; one that is running again (a person answered while this pass ended) waits
      // for a worker, this one or another.
      const status = await releaseLease(prisma, runId, owner).catch(() => null);
      if (status === "running") deps.signals.publish(RUN_READY, String(runId));
    }
    if (sink.metadataOnly) {
      const now = await findRunById(prisma, runId);
      if (!now || isTerminalStatus(now.status)) deps.live.release(runId);
    }
  }
}

const countMessages = (row: RunRow) => (Array.isArray(row.messages) ? row.messages.length : 0);
