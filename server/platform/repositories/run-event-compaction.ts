// Merging a finished run's text deltas (event-log retention, jobs/event-retention.ts) and reading
// merged frames back. Consecutive content_block_delta frames of one text block become one frame that
// keeps the LAST merged id: every frame after it keeps its id, so ids stay monotonic and a reader
// resuming at or after that id sees nothing change, and one resuming before the range gets the whole
// text once. A reader resuming inside the range (Last-Event-ID = a merged id) must get only the text
// after it, so the frame also records, for each merged id but the last, where its text ended
// (`compacted`); frameAfter() cuts there, and no reader ever sees `compacted`.
import type { RunFrame } from "@inlay/core/schemas/runs";

type Delta = Extract<RunFrame, { type: "content_block_delta" }>;

/** A merged delta as stored: `ids[i]` (a decimal event id) ended at `ends[i]` characters of the text. */
export type StoredDelta = Delta & { compacted?: { ids: string[]; ends: number[] } };

export interface StoredFrame {
  id: bigint;
  frame: RunFrame;
}

export interface Merge {
  /** The row that holds the merged frame (the group's last). */
  keep: bigint;
  frame: StoredDelta;
  /** The other rows of the group. */
  remove: bigint[];
}

const isDelta = (frame: RunFrame): frame is StoredDelta => frame.type === "content_block_delta";

/** The merges for a run's log (in id order): one per run of two or more deltas of one block. */
export function planCompaction(events: StoredFrame[]): Merge[] {
  const merges: Merge[] = [];
  let group: { id: bigint; frame: StoredDelta }[] = [];
  const flush = () => {
    if (group.length > 1) merges.push(merge(group));
    group = [];
  };
  for (const event of events) {
    const { frame } = event;
    if (!isDelta(frame)) {
      flush();
      continue;
    }
    if (group.length > 0 && group[0]!.frame.id !== frame.id) flush();
    group.push({ id: event.id, frame });
  }
  flush();
  return merges;
}

function merge(group: { id: bigint; frame: StoredDelta }[]): Merge {
  const ids: string[] = [];
  const ends: number[] = [];
  let text = "";
  group.forEach(({ id, frame }, index) => {
    frame.compacted?.ids.forEach((inner, i) => {
      ids.push(inner);
      ends.push(text.length + frame.compacted!.ends[i]!);
    });
    text += frame.delta.text;
    if (index < group.length - 1) {
      ids.push(id.toString());
      ends.push(text.length);
    }
  });
  const last = group.at(-1)!;
  return {
    keep: last.id,
    frame: { type: "content_block_delta", id: last.frame.id, delta: { type: "text_delta", text }, compacted: { ids, ends } },
    remove: group.slice(0, -1).map(({ id }) => id),
  };
}

/** The frame a reader that has everything up to `afterId` gets for this stored row. */
export function frameAfter(frame: RunFrame, afterId: bigint): RunFrame {
  if (!isDelta(frame) || !frame.compacted) return frame;
  const { compacted, ...plain } = frame;
  let cut = 0;
  compacted.ids.forEach((id, i) => {
    if (BigInt(id) <= afterId) cut = compacted.ends[i]!;
  });
  return cut === 0 ? plain : { ...plain, delta: { ...plain.delta, text: plain.delta.text.slice(cut) } };
}
