// A run whose stream was cut mid-answer (its worker handed it back or died: recovery.ts) goes on where
// the stream was. The text already in its log is the assistant's partial turn: the resumed pass sends
// the conversation followed by an assistant message holding that text, as plain AI SDK messages, so
// whatever the provider. Anthropic and most open-model servers take a trailing assistant message as
// the start of their answer and continue it; a provider that reads it as a finished turn answers after
// it instead (readers then get that answer after the partial text, nothing is dropped). The call's
// usage counts the partial text as prompt and only the new text as output. What is stored (checkpoints,
// the run's conversation and output) holds the turn as one assistant message: the partial text joined
// to what the model said after it.
import type { AssistantModelMessage, ModelMessage } from "ai";
import type { CheckpointHooks } from "./recovery";

/** The assistant message that asks the model to continue `text`. */
export function partialTurn(text: string): AssistantModelMessage {
  return { role: "assistant", content: [{ type: "text", text }] };
}

/**
 * What the model responded after the partial turn, with that turn's text joined to the start of the
 * first assistant message's text (its own text part when it has none, a tool call only).
 */
export function joinPartialTurn(text: string, responded: ModelMessage[]): ModelMessage[] {
  const [first, ...rest] = responded;
  if (first?.role !== "assistant") return [partialTurn(text), ...responded];
  const content = typeof first.content === "string" ? [{ type: "text" as const, text: first.content }] : first.content;
  const at = content.findIndex((part) => part.type === "text");
  const joined =
    at === -1
      ? [{ type: "text" as const, text }, ...content]
      : content.map((part, index) => (index === at && part.type === "text" ? { ...part, text: text + part.text } : part));
  return [{ ...first, content: joined }, ...rest];
}

/**
 * What a pass gives streamText for its conversation, `stored` as the run keeps it and `input` as the
 * model reads it (the same messages, attachments inline), continuing `partial` when there is one: the
 * model's messages, and the checkpoint hooks given the conversation in its stored form.
 */
export function passMessages(stored: ModelMessage[], input: ModelMessage[], partial: string | undefined, hooks: Partial<CheckpointHooks>) {
  const messages = partial === undefined ? input : [...input, partialTurn(partial)];
  const join = (responded: ModelMessage[]) => (partial === undefined || responded.length === 0 ? responded : joinPartialTurn(partial, responded));
  let firstStep = true;
  return {
    messages,
    /** The messages of the pass's steps as stored: the partial turn joined in. */
    responded: join,
    hooks: {
      ...hooks,
      ...(hooks.onStepStart
        ? { onStepStart: (event: { messages: ModelMessage[] }) => hooks.onStepStart!({ messages: [...stored, ...join(event.messages.slice(messages.length))] }) }
        : {}),
      // Only the first step's response holds the continued turn.
      ...(hooks.onStepEnd && partial !== undefined
        ? {
            onStepEnd: (step: Parameters<CheckpointHooks["onStepEnd"]>[0], call?: Parameters<CheckpointHooks["onStepEnd"]>[1]) => {
              const continued = firstStep;
              firstStep = false;
              return hooks.onStepEnd!(continued ? { content: step.content, response: { messages: join(step.response.messages) } } : step, call);
            },
          }
        : {}),
    },
  };
}

/**
 * The pass's answer: the last step's text and structured output, the partial text in front when that
 * step is the continued one. The SDK parsed the output from the continuation alone: it is parsed again
 * from the whole text (undefined when that is no JSON, as the SDK leaves it).
 */
export function passAnswer(
  partial: string | undefined,
  ended: { steps: readonly unknown[]; text: string; output?: unknown },
  structured: boolean,
): { text: string; output: unknown } {
  if (partial === undefined || ended.steps.length !== 1) return { text: ended.text, output: ended.output };
  const text = partial + ended.text;
  if (!structured) return { text, output: ended.output };
  try {
    return { text, output: JSON.parse(text) as unknown };
  } catch {
    return { text, output: undefined };
  }
}
