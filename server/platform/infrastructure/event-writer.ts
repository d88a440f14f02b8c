// Appends run frames to the event log for this whole process: whatever the executor's runs, cancels
// and status changes want written while a statement is in flight goes out together in the next one
// (one multi-row INSERT for every run, repositories/run-events.ts appendEventsOfRuns), so the database sees
// one statement per round, not one per run per flush. At most one statement is in flight: the frames
// of one run are committed in the order they were appended, and their ids increase in that order.
//
// When idle, the writer waits for the event loop's next turn (setImmediate) so that every run's
// frames of this turn join one statement. An urgent append (a run's first token) does not wait: on
// PGlite, database work chains through microtasks, so a turn of the loop can be seconds away while
// runs start, and a first token must not wait for them.
import type { RunFrame } from "@inlay/core/schemas/runs";
import type { Db } from "../repositories/db";
import { type AppendedEvents, appendEventsOfRuns, type EventAppend, type WakeUp } from "../repositories/run-events";
import { rejectedByDatabase } from "../../shared/db-errors";

export interface RunEventWriter {
  /**
   * Appends `frames` to the run's log; resolves once they are committed, with their ids and the run's
   * event before them (the EventBatch a local publish needs), or rejects when they were not written.
   */
  append(runId: number, frames: RunFrame[], options?: { urgent?: boolean }): Promise<AppendedEvents>;
  /** The NOTIFY its statement sends with the frames (none on PGlite): a statement that appends frames itself sends the same. */
  readonly wake?: WakeUp;
}

interface Waiting extends EventAppend {
  resolve(result: AppendedEvents): void;
  reject(error: unknown): void;
}

/**
 * `wake`: the statement that writes a run's frames also wakes the other instances' readers of it
 * (PostgreSQL; event-bus.ts then sends no wake-up of its own for those frames).
 */
export function createRunEventWriter(prisma: Db, wake?: WakeUp): RunEventWriter {
  let queue: Waiting[] = [];
  // A drain loop is writing (or about to): it takes whatever is queued.
  let writing = false;
  let turnScheduled = false;

  async function write(batch: Waiting[]) {
    try {
      const results = await appendEventsOfRuns(prisma, batch, wake);
      batch.forEach((waiting, index) => waiting.resolve(results[index]!));
    } catch (error) {
      // One run's frames must not fail every run that shared the statement (a run deleted meanwhile
      // fails its foreign key): when the database refused the statement, nothing of it was written,
      // so each append is tried alone and fails or succeeds on its own. Otherwise (the connection was
      // lost: the statement may have committed) every caller gets the error; none is written twice.
      if (batch.length === 1 || !rejectedByDatabase(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        await appendEventsOfRuns(prisma, [waiting], wake).then((results) => waiting.resolve(results[0]!), waiting.reject);
      }
    }
  }

  async function drain() {
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        await write(batch);
      }
    } finally {
      writing = false;
    }
  }

  const start = () => {
    if (writing || queue.length === 0) return;
    writing = true;
    void drain();
  };

  return {
    wake,
    append(runId, frames, options) {
      if (frames.length === 0) return Promise.resolve({ after: 0n, ids: [] });
      return new Promise<AppendedEvents>((resolve, reject) => {
        queue.push({ runId, frames, resolve, reject });
        if (writing) return;
        if (options?.urgent) {
          // Still after the current synchronous work, so appends made alongside it join.
          queueMicrotask(start);
        } else if (!turnScheduled) {
          // Appends made in the same turn of the event loop (other runs' flushes) join this statement.
          turnScheduled = true;
          setImmediate(() => {
            turnScheduled = false;
            start();
          });
        }
      });
    },
  };
}
