// A resumed pass continues the answer its run's log already holds (runtime/partial-turn.ts): the model
// gets it as the assistant's partial turn, and what is stored joins it to what the model said after it.
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { joinPartialTurn, passAnswer, passMessages, partialTurn } from "@/server/platform/runtime/partial-turn";
import type { CheckpointHooks } from "@/server/platform/runtime/recovery";

const user: ModelMessage = { role: "user", content: "::words 5" };

describe("joinPartialTurn", () => {
  it("puts the partial text in front of the first assistant message's text", () => {
    const responded: ModelMessage[] = [
      { role: "assistant", content: [{ type: "reasoning", text: "hm" }, { type: "text", text: "charlie delta" }, { type: "tool-call", toolCallId: "c1", toolName: "calc", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "calc", output: { type: "json", value: 1 } }] },
    ];
    expect(joinPartialTurn("alpha bravo ", responded)).toEqual([
      { role: "assistant", content: [{ type: "reasoning", text: "hm" }, { type: "text", text: "alpha bravo charlie delta" }, { type: "tool-call", toolCallId: "c1", toolName: "calc", input: {} }] },
      responded[1],
    ]);
  });

  it("gives the partial text a part of its own before a step that only calls a tool", () => {
    const call = { type: "tool-call" as const, toolCallId: "c1", toolName: "calc", input: {} };
    expect(joinPartialTurn("alpha ", [{ role: "assistant", content: [call] }])).toEqual([{ role: "assistant", content: [{ type: "text", text: "alpha " }, call] }]);
    expect(joinPartialTurn("alpha ", [{ role: "assistant", content: "bravo" }])).toEqual([{ role: "assistant", content: [{ type: "text", text: "alpha bravo" }] }]);
  });
});

describe("passMessages", () => {
  function recorder() {
    const starts: ModelMessage[][] = [];
    const ends: ModelMessage[][] = [];
    const hooks: Partial<CheckpointHooks> = {
      onStepStart: (event) => void starts.push(event.messages),
      onStepEnd: async (step) => void ends.push(step.response.messages),
    };
    return { starts, ends, hooks };
  }

  it("asks the model to continue the partial turn, and gives checkpoints the turn joined, once", async () => {
    const { starts, ends, hooks } = recorder();
    const input = passMessages([user], [user], "alpha bravo ", hooks);
    expect(input.messages).toEqual([user, partialTurn("alpha bravo ")]);
    const step1: ModelMessage[] = [
      { role: "assistant", content: [{ type: "text", text: "charlie" }, { type: "tool-call", toolCallId: "c1", toolName: "calc", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "calc", output: { type: "json", value: 1 } }] },
    ];
    const step2: ModelMessage[] = [{ role: "assistant", content: [{ type: "text", text: "done" }] }];
    const joined = joinPartialTurn("alpha bravo ", step1);

    input.hooks.onStepStart!({ messages: input.messages });
    await input.hooks.onStepEnd!({ content: [], response: { messages: step1 } });
    input.hooks.onStepStart!({ messages: [...input.messages, ...step1] });
    await input.hooks.onStepEnd!({ content: [], response: { messages: step2 } });

    // The conversation as stored: no separate partial message, the first step's turn joined.
    expect(starts).toEqual([[user], [user, ...joined]]);
    expect(ends).toEqual([joined, step2]);
    expect(input.responded([...step1, ...step2])).toEqual([...joined, ...step2]);
  });

  it("changes nothing without a partial turn", async () => {
    const { starts, ends, hooks } = recorder();
    const input = passMessages([user], [user], undefined, hooks);
    expect(input.messages).toEqual([user]);
    const step: ModelMessage[] = [{ role: "assistant", content: [{ type: "text", text: "hi" }] }];
    input.hooks.onStepStart!({ messages: [user] });
    await input.hooks.onStepEnd!({ content: [], response: { messages: step } });
    expect(starts).toEqual([[user]]);
    expect(ends).toEqual([step]);
    expect(input.responded(step)).toEqual(step);
  });
});

describe("passAnswer", () => {
  it("puts the partial text in front of the answer when the last step is the continued one", () => {
    expect(passAnswer("alpha ", { steps: [{}], text: "bravo" }, false)).toEqual({ text: "alpha bravo", output: undefined });
    // A later step is a new call: its text is its own.
    expect(passAnswer("alpha ", { steps: [{}, {}], text: "done" }, false)).toEqual({ text: "done", output: undefined });
    expect(passAnswer(undefined, { steps: [{}], text: "hi", output: { a: 1 } }, true)).toEqual({ text: "hi", output: { a: 1 } });
  });

  it("parses a structured answer from the whole text, the SDK having seen only the continuation", () => {
    expect(passAnswer('{"a": ', { steps: [{}], text: "1}", output: undefined }, true)).toEqual({ text: '{"a": 1}', output: { a: 1 } });
    expect(passAnswer('{"a": ', { steps: [{}], text: "oops", output: undefined }, true)).toEqual({ text: '{"a": oops', output: undefined });
  });
});
