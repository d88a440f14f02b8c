// Reads a text/event-stream response into frames, the way a client would (eventsource-parser).
import { EventSourceParserStream } from "eventsource-parser/stream";

export interface Frame {
  id: string | undefined;
  data: any;
}

/** Reads frames until the stream ends, `until` returns true, or `limit` frames arrived. */
export async function readFrames(
  response: Response,
  options: { until?: (frame: Frame) => boolean; limit?: number } = {},
): Promise<Frame[]> {
  if (!response.body) throw new Error("response has no body");
  const frames: Frame[] = [];
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const frame = { id: value.id, data: JSON.parse(value.data) };
      frames.push(frame);
      if (options.until?.(frame) || (options.limit !== undefined && frames.length >= options.limit)) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return frames;
}

export const textOf = (frames: Frame[]) =>
  frames
    .filter((frame) => frame.data.type === "content_block_delta")
    .map((frame) => frame.data.delta.text)
    .join("");
