// Secret values that must never leave a run (an agent's repository env, services/agents/agent-repos.ts): every
// occurrence in what the run outputs becomes REDACTED_MARKER. Occurrences that overlap (two values
// sharing characters, or one value inside another) become one marker, so no character of any of
// them is left. Streamed text is redacted as it streams (TextRedactor): only a tail that could still
// be the start of a value is held back, so what is streamed adds up to the redaction of the whole
// text whatever the deltas' boundaries. Pure: the caller loads the values (run-pass.ts).
import type { ModelMessage } from "ai";
import type { RunFrame } from "@inlay/core/schemas/runs";

export const REDACTED_MARKER = "[REDACTED]";

type Interval = [start: number, end: number];

/** KMP's failure table: for each prefix length, the longest proper border of that prefix. */
function failureTable(value: string): Int32Array {
  const table = new Int32Array(value.length + 1);
  table[0] = -1;
  let k = -1;
  for (let i = 0; i < value.length; i++) {
    while (k >= 0 && value[k] !== value[i]) k = table[k]!;
    k++;
    table[i + 1] = k;
  }
  return table;
}

export class SecretRedactor {
  /** A redactor with nothing to redact: everything passes through as it is. */
  static readonly none = new SecretRedactor([]);

  private readonly values: { value: string; failure: Int32Array }[];

  constructor(values: Iterable<string>) {
    // The contract keeps values at 8 characters or more; an empty one would match everywhere.
    this.values = [...new Set(values)].filter((value) => value.length > 0).map((value) => ({ value, failure: failureTable(value) }));
  }

  get active(): boolean {
    return this.values.length > 0;
  }

  /** Every occurrence of every value, merged where they overlap (adjacent ones stay apart). */
  private intervals(text: string): Interval[] {
    const found: Interval[] = [];
    for (const { value } of this.values) {
      for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) found.push([at, at + value.length]);
    }
    if (found.length === 0) return found;
    found.sort((a, b) => a[0] - b[0]);
    const merged: Interval[] = [found[0]!];
    for (const [start, end] of found.slice(1)) {
      const last = merged.at(-1)!;
      if (start < last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }

  private static render(text: string, intervals: Interval[], upTo = text.length): string {
    let out = "";
    let at = 0;
    for (const [start, end] of intervals) {
      if (end > upTo) break;
      out += text.slice(at, start) + REDACTED_MARKER;
      at = end;
    }
    return out + text.slice(at, upTo);
  }

  text(text: string): string {
    if (!this.active) return text;
    const intervals = this.intervals(text);
    return intervals.length === 0 ? text : SecretRedactor.render(text, intervals);
  }

  /** A JSON-like value with every string in it redacted (object keys too); other values as they are. */
  json<T>(value: T): T {
    if (!this.active) return value;
    return this.deep(value) as T;
  }

  private deep(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.deep(item));
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.deep(item)]));
    }
    return value;
  }

  /** A frame's content redacted (text deltas one by one: a stream of them needs a TextRedactor). */
  frame(frame: RunFrame): RunFrame {
    if (!this.active) return frame;
    switch (frame.type) {
      case "content_block_delta":
        return { ...frame, delta: { ...frame.delta, text: this.text(frame.delta.text) } };
      case "tool_use":
        return { ...frame, input: this.json(frame.input) };
      case "tool_result":
        return { ...frame, content: this.text(frame.content), result: this.json(frame.result) };
      case "permission_request":
        return { ...frame, input: this.json(frame.input) };
      case "done":
        return frame.output_data ? { ...frame, output_data: this.json(frame.output_data) } : frame;
      case "run_status":
        return frame.error !== undefined ? { ...frame, error: this.text(frame.error) } : frame;
      default:
        return frame;
    }
  }

  messages(messages: ModelMessage[]): ModelMessage[] {
    return this.json(messages);
  }

  /** Where the text's tail could still become a value: the earliest start of a proper prefix of one. */
  private openTail(text: string): number {
    let earliest = text.length;
    for (const { value, failure } of this.values) {
      // KMP over the last |value|-1 characters: the state is the longest suffix that is a prefix.
      const from = Math.max(0, text.length - (value.length - 1));
      let state = 0;
      for (let i = from; i < text.length; i++) {
        while (state >= 0 && value[state] !== text[i]) state = failure[state]!;
        state++;
      }
      if (state > 0) earliest = Math.min(earliest, text.length - state);
    }
    return earliest;
  }

  /** A stream of text (one content block) to redact as it comes. */
  stream(): TextRedactor {
    return new TextRedactor(this);
  }

  /**
   * Splits `text` where everything before can go out: no occurrence crosses the cut and nothing after
   * it could become one with more text. Returns the redacted part before the cut, and the rest.
   */
  cut(text: string): { out: string; held: string } {
    if (!this.active) return { out: text, held: "" };
    let cut = this.openTail(text);
    const intervals = this.intervals(text);
    for (const [start, end] of intervals) if (start < cut && cut < end) cut = start;
    return { out: SecretRedactor.render(text, intervals, cut), held: text.slice(cut) };
  }
}

/** One content block's text, redacted as its deltas come; `end()` releases what it held back. */
export class TextRedactor {
  private held = "";

  constructor(private readonly redactor: SecretRedactor) {}

  /** What of the text so far can go out now (may be ""). */
  push(delta: string): string {
    const { out, held } = this.redactor.cut(this.held + delta);
    this.held = held;
    return out;
  }

  /** The text held back, redacted: the block ended or something else is said. */
  end(): string {
    const rest = this.redactor.text(this.held);
    this.held = "";
    return rest;
  }
}
