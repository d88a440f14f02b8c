// Where a run's executor puts the frames it produces: one write in flight per run. A frame goes to
// the writer at once when none is in flight, and whatever arrives during a write goes with the next
// one; the writer puts every run's frames of a turn in one statement (event-writer.ts): low latency
// for the first token, batches under load. A write that fails stops the run: the next push throws,
// rather than the run go on with a hole in its log. Every frame is redacted of the run's secret values
// as it comes in (secret-redactor.ts), so the log, this process's readers and the live content all
// get the redacted form; text deltas come redacted already (stream-frames.ts redacts them as a stream).
import { logger } from "@/lib/logger";
import { type RunFrame, timedFrame } from "@inlay/core/schemas/runs";
import { type EventBatch, eventBatch } from "../infrastructure/event-bus";
import type { RunEventWriter } from "../infrastructure/event-writer";
import type { AppendedEvents } from "../repositories/run-events";
import type { LiveContent } from "../infrastructure/live-content";
import { redactFrame } from "../infrastructure/redact";
import { SecretRedactor } from "../infrastructure/secret-redactor";

const isSaying = (frame: RunFrame) => frame.type === "content_block_delta" || frame.type === "tool_use";

export class FrameSink {
  /** tool_use ids whose tool_result frame is in the log (checkpoints wait for them: recovery.ts). */
  readonly writtenResults = new Set<string>();
  /** metadata_only: the log gets redacted frames; the full ones stay in this process (live-content.ts). */
  metadataOnly = false;
  /** The values that must not leave the run (set once the pass has loaded them). */
  redactor = SecretRedactor.none;
  private pending: RunFrame[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private draining = false;
  private writeError: { error: unknown } | undefined;
  // The statement that ends the pass has the pending frames (hold()): no write starts meanwhile.
  private holding = false;
  // The first thing the model says is written at once (event-writer.ts, urgent); the rest in batches.
  private saidAnything = false;

  constructor(
    private readonly runId: number,
    private readonly out: {
      events: RunEventWriter;
      live: LiveContent;
      /** This process's readers get the frames (full ones, even under metadata_only) with their ids. */
      publish: (batch: EventBatch) => Promise<void>;
    },
  ) {}

  /** Whether the model's first words or tool call have gone to the writer. */
  get said(): boolean {
    return this.saidAnything;
  }

  push(...frames: RunFrame[]): void {
    // The loop stops at the next frame after a failed write (execute() then fails the run).
    if (this.writeError) throw this.writeError.error;
    this.pending.push(...this.prepare(frames));
    // A write in flight takes these with its next statement.
    if (!this.draining && !this.holding) this.flush().catch((error: unknown) => logger.warn({ runId: this.runId, err: error }, "writing run frames failed"));
  }

  /**
   * Frames as push() keeps them: timed (`at`: when the executor produced them) and redacted of the
   * run's secret values (text deltas come redacted already, and untimed).
   */
  prepare(frames: RunFrame[]): RunFrame[] {
    const redactor = this.redactor;
    const now = new Date();
    return frames.map((frame) => {
      if (frame.type === "content_block_delta") return frame;
      const timed = timedFrame(frame, now);
      return redactor.active ? redactor.frame(timed) : timed;
    });
  }

  /** Frames as the log holds them: a metadata_only run's are redacted of their content. */
  forLog(frames: RunFrame[]): RunFrame[] {
    return this.metadataOnly ? frames.map(redactFrame) : frames;
  }

  /**
   * For the statement that ends the pass (it writes them with the run's change, one round trip less):
   * waits for the write in flight, then hands over the frames not written yet, and starts no write
   * until written() or release().
   */
  async hold(): Promise<RunFrame[]> {
    this.holding = true;
    try {
      await this.flushing;
    } catch (error) {
      this.holding = false;
      throw error;
    }
    return this.pending.splice(0);
  }

  /** The held frames (and any added to them) were written with these ids. */
  async written(frames: RunFrame[], appended: AppendedEvents): Promise<void> {
    this.holding = false;
    this.saidAnything ||= frames.some(isSaying);
    await this.afterWrite(frames, appended);
    if (this.pending.length > 0) await this.flush();
  }

  /** The held frames were not written: they go first, as they came. */
  release(frames: RunFrame[]): void {
    this.pending.unshift(...frames);
    this.holding = false;
    if (this.pending.length > 0) this.flush().catch((error: unknown) => logger.warn({ runId: this.runId, err: error }, "writing run frames failed"));
  }

  /** Writes what is pending; resolves once it is committed. */
  flush(): Promise<void> {
    if (this.writeError) return Promise.reject(this.writeError.error);
    if (this.draining || this.holding || this.pending.length === 0) return this.flushing;
    this.draining = true;
    this.flushing = this.drain();
    return this.flushing;
  }

  /** Forgets the frames not yet written (a cancelled run: the cancel wrote its last frames). */
  drop(): void {
    this.pending.length = 0;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.holding) {
        const frames = this.pending.splice(0);
        const urgent = !this.saidAnything && frames.some(isSaying);
        this.saidAnything ||= urgent;
        let written;
        try {
          written = await this.out.events.append(this.runId, this.forLog(frames), { urgent });
        } catch (error) {
          this.writeError = { error };
          this.pending.length = 0;
          throw error;
        }
        await this.afterWrite(frames, written);
      }
    } finally {
      this.draining = false;
    }
  }

  private async afterWrite(frames: RunFrame[], written: AppendedEvents): Promise<void> {
    if (this.metadataOnly) this.out.live.putFrames(this.runId, written.ids, frames);
    for (const frame of frames) if (frame.type === "tool_result") this.writtenResults.add(frame.tool_use_id);
    await this.out.publish(eventBatch(written, frames));
  }
}
