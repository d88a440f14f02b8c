// One follower per run per instance for the readers of run logs (runtime/follow-run.ts, the SSE
// streams). A writer hands its frames over with the wake-up (event-bus.ts, EventBatch: in this process
// directly, from another in its NOTIFY); a bare wake-up (frames too large for a NOTIFY, a writer that
// sent no events, a LISTEN gap) used to make
// every reader of the run read the log from its own cursor: with many streams on a web instance, one
// query per reader per frame batch, and the frames waited behind them. Here a bare wake-up is one read
// for the run, handed to its readers as an EventBatch; the wake-ups of every run that arrive together
// (one NOTIFY names the runs of a whole write) or while a read is in flight are read together, in one
// statement, once it is done. The log stays the truth: a reader whose cursor the batch does not join
// reads the log itself, as it does when it starts and after an idle wait (a lost NOTIFY).
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import { eventsAfterEach } from "../repositories/run-events";
import type { EventBatch, RunEventBus, RunEventListener } from "./event-bus";
import type { LiveContent } from "./live-content";

/** Events read per run per statement; a run with more is read again at once. */
const TAKE = 500;

export interface RunFollowers {
  /**
   * As bus.subscribe, for a reader of the run's log whose cursor is `after` when it starts: its bare
   * wake-ups come as the batch this instance read once for every reader of the run (or bare, when
   * the read failed or found merged rows: then the reader reads the log itself).
   */
  subscribe(runId: number, after: bigint, listener: RunEventListener): () => void;
  /** The bus's heardAfter: a wake-up for the run came that may hold events past `after`. */
  heardAfter(runId: number, after: bigint): boolean;
  /** Reads of the log done so far (one per statement, whatever the runs in it), for tests and metrics. */
  readonly reads: number;
  close(): void;
}

interface Follower {
  listeners: Set<RunEventListener>;
  /** The run's last event id this instance has seen in a batch, or the first reader's cursor. */
  known: bigint;
  stop: () => void;
}

export function createRunFollowers(deps: { prisma: Db; bus: RunEventBus; live: LiveContent }): RunFollowers {
  const { prisma, bus, live } = deps;
  const followers = new Map<number, Follower>();
  let due = new Set<number>();
  let reading: Promise<void> | undefined;
  let reads = 0;

  const emit = (follower: Follower, batch?: EventBatch) => {
    for (const listener of [...follower.listeners]) listener(batch);
  };

  const readDue = async () => {
    while (due.size > 0) {
      const woken = [...due].flatMap((runId) => {
        const follower = followers.get(runId);
        return follower ? [{ runId, follower, after: follower.known }] : [];
      });
      due = new Set();
      if (woken.length === 0) continue;
      let read;
      try {
        reads++;
        read = await eventsAfterEach(prisma, woken, TAKE);
      } catch (error) {
        // Each reader reads the log itself, as without a follower.
        logger.warn({ err: error }, "reading the woken runs' logs failed; their readers read them");
        for (const { runId, follower } of woken) if (followers.get(runId) === follower) emit(follower);
        continue;
      }
      for (const { runId, follower, after } of woken) {
        if (followers.get(runId) !== follower) continue;
        const events = read.get(runId) ?? [];
        if (events.length === 0) continue;
        if (events.length === TAKE) due.add(runId);
        const last = events.at(-1)!.id;
        if (last > follower.known) follower.known = last;
        // A merged delta's text depends on the cursor it is read from: each reader reads its own.
        if (events.some((event) => event.merged)) {
          emit(follower);
          continue;
        }
        // A metadata_only run's log is redacted; this process may still hold the full frame.
        emit(follower, { after, events: events.map((event) => ({ id: event.id, frame: live.frame(runId, event.id) ?? event.frame })) });
      }
    }
  };

  const wake = (runId: number) => {
    due.add(runId);
    // After the current task: the other runs a NOTIFY names join this read.
    reading ??= Promise.resolve()
      .then(readDue)
      .finally(() => {
        reading = undefined;
        if (due.size > 0) wake([...due][0]!);
      });
  };

  return {
    subscribe(runId, after, listener) {
      let follower = followers.get(runId);
      if (!follower) {
        const created: Follower = { listeners: new Set(), known: after, stop: () => {} };
        created.stop = bus.subscribe(runId, (batch) => {
          if (!batch) return wake(runId);
          const last = batch.events.at(-1)?.id ?? 0n;
          if (last > created.known) created.known = last;
          emit(created, batch);
        });
        followers.set(runId, created);
        follower = created;
      }
      const own = follower;
      // A listener may be added twice (the same function): each subscription is its own.
      const entry: RunEventListener = (batch) => listener(batch);
      own.listeners.add(entry);
      return () => {
        own.listeners.delete(entry);
        if (own.listeners.size === 0 && followers.get(runId) === own) {
          followers.delete(runId);
          own.stop();
        }
      };
    },
    heardAfter: (runId, after) => bus.heardAfter(runId, after),
    get reads() {
      return reads;
    },
    close() {
      for (const follower of followers.values()) follower.stop();
      followers.clear();
      due.clear();
    },
  };
}
