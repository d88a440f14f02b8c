// What a metadata_only run says, kept only in this process's memory (docs/platform-api.md, "Retention").
// Such a run stores redacted frames and a redacted conversation; the full ones live here while the run
// is live, so the POST's own stream (served by this process, which executes the run) still shows the
// answer, and a pause can resume here. Another process has none of it: a metadata_only run resumed
// elsewhere, or after a restart, fails with conversation_not_retained.
import type { ModelMessage } from "ai";
import type { RunFrame } from "@inlay/core/schemas/runs";

/** How long a finished run's frames stay for streams still catching up with its log. */
export const LIVE_GRACE_MS = 60_000;

interface LiveRun {
  messages?: ModelMessage[];
  frames: Map<bigint, RunFrame>;
  timer?: NodeJS.Timeout;
}

export interface LiveContent {
  setMessages(runId: number, messages: ModelMessage[]): void;
  messages(runId: number): ModelMessage[] | undefined;
  putFrames(runId: number, ids: bigint[], frames: RunFrame[]): void;
  /** The full frame for a stored (redacted) event, while this process still holds it. */
  frame(runId: number, eventId: bigint): RunFrame | undefined;
  /** Forgets the run's conversation now and its frames after the grace period. */
  release(runId: number): void;
  /** Forgets everything (shutdown). */
  clear(): void;
}

export function createLiveContent(graceMs = LIVE_GRACE_MS): LiveContent {
  const runs = new Map<number, LiveRun>();
  const entry = (runId: number) => {
    let run = runs.get(runId);
    if (!run) {
      run = { frames: new Map() };
      runs.set(runId, run);
    }
    if (run.timer) {
      clearTimeout(run.timer);
      run.timer = undefined;
    }
    return run;
  };
  return {
    setMessages(runId, messages) {
      entry(runId).messages = messages;
    },
    messages: (runId) => runs.get(runId)?.messages,
    putFrames(runId, ids, frames) {
      const run = entry(runId);
      ids.forEach((id, index) => run.frames.set(id, frames[index]!));
    },
    frame: (runId, eventId) => runs.get(runId)?.frames.get(eventId),
    release(runId) {
      const run = runs.get(runId);
      if (!run) return;
      run.messages = undefined;
      if (run.timer) clearTimeout(run.timer);
      run.timer = setTimeout(() => runs.delete(runId), graceMs);
      run.timer.unref();
    },
    clear() {
      for (const run of runs.values()) if (run.timer) clearTimeout(run.timer);
      runs.clear();
    },
  };
}
