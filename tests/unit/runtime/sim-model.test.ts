import { describe, expect, it, vi } from "vitest";
import {
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
  type LanguageModelV3ToolResultOutput,
} from "@ai-sdk/provider";
import { generateText, type ModelMessage, Output, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import {
  createSimModel,
  parseDirectives,
  promptText,
  SimModelError,
  simReply,
  type SimSleep,
  splitWords,
  wordList,
} from "@/server/platform/models/sim";

const tokens = (text: string) => Math.ceil(text.length / 4);

/**
 * A sleep that records what it was asked and returns at once (unless the signal is already aborted),
 * moving a fake clock on by as much: pass both to createSimModel.
 */
function fakeSleep() {
  const calls: number[] = [];
  let clock = 0;
  const sleep: SimSleep = async (ms, signal) => {
    calls.push(ms);
    clock += ms;
    signal?.throwIfAborted();
  };
  return { calls, sleep, now: () => clock };
}

const calculator = tool({
  description: "Evaluate an arithmetic expression.",
  inputSchema: z.object({ expression: z.string() }),
  execute: async ({ expression }) => {
    const [left, right] = expression.split("*").map(Number);
    return { result: (left ?? 0) * (right ?? 0) };
  },
});

// No execute: like the platform's AskUserQuestion, the run stops and waits for the person's answer.
const askUserQuestion = tool({
  description: "Ask the person a question with options.",
  inputSchema: z.object({
    questions: z.array(z.object({ question: z.string(), options: z.array(z.object({ label: z.string() })) })),
  }),
});

async function collect(stream: AsyncIterable<{ type: string }>) {
  const parts: any[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

async function readAll(stream: ReadableStream<LanguageModelV3StreamPart>) {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return parts;
}

const textDeltas = (parts: any[]) => parts.filter((part) => part.type === "text-delta").map((part) => part.text);

describe("the LanguageModelV3 contract", () => {
  it("names itself inlay/sim, spec v3", () => {
    const model = createSimModel();
    expect(model.specificationVersion).toBe("v3");
    expect(model.provider).toBe("inlay");
    expect(model.modelId).toBe("inlay/sim");
  });

  it("streams stream-start, metadata, text parts, tool parts and a finish with usage, in that order", async () => {
    const prompt: LanguageModelV3CallOptions["prompt"] = [
      { role: "user", content: [{ type: "text", text: '::tool calculator {"expression":"6*7"}' }] },
    ];
    const { stream } = await createSimModel().doStream({ prompt });
    const parts = await readAll(stream);
    expect(parts.map((part) => part.type)).toEqual([
      "stream-start",
      "response-metadata",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "finish",
    ]);
    expect(parts[5]).toEqual({
      type: "tool-call",
      toolCallId: "sim-call-1",
      toolName: "calculator",
      input: '{"expression":"6*7"}',
    });
    const produced = 'calculator {"expression":"6*7"}';
    expect(parts[6]).toEqual({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool-calls" },
      usage: {
        inputTokens: { total: tokens(promptText(prompt)), noCache: tokens(promptText(prompt)), cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: tokens(produced), text: tokens(produced), reasoning: 0 },
        raw: { promptCharacters: promptText(prompt).length, outputCharacters: produced.length },
      },
    });
  });

  it("answers the same from doGenerate as from doStream", async () => {
    const model = createSimModel();
    const prompt: LanguageModelV3CallOptions["prompt"] = [{ role: "user", content: [{ type: "text", text: "same thing" }] }];
    const generated = await model.doGenerate({ prompt });
    expect(generated.content).toEqual([{ type: "text", text: "Echo: same thing" }]);
    expect(generated.finishReason).toEqual({ unified: "stop", raw: "stop" });
    const { stream } = await model.doStream({ prompt });
    const parts = await readAll(stream);
    const finish = parts.at(-1);
    expect(finish?.type === "finish" && finish.usage).toEqual(generated.usage);
  });
});

describe("parseDirectives", () => {
  it("separates directive lines from the text, in order", () => {
    expect(
      parseDirectives('Hello\n::tool search {"q":"x"}\n  ::ask Colour? | Red | Blue\nworld\n::delay 20\n::words 3\n::fail no'),
    ).toEqual({
      directives: [
        { kind: "tool", toolName: "search", input: { q: "x" } },
        { kind: "ask", question: "Colour?", options: ["Red", "Blue"] },
        { kind: "delay", ms: 20 },
        { kind: "words", count: 3 },
        { kind: "fail", message: "no" },
      ],
      text: "Hello\nworld",
    });
  });

  it("gives a tool without JSON an empty input", () => {
    expect(parseDirectives("::tool ping").directives).toEqual([{ kind: "tool", toolName: "ping", input: {} }]);
  });

  it.each([
    ["::shout hi", /unknown directive "::shout"/],
    ["::tool", /::tool needs a tool name/],
    ["::tool calc {oops", /not valid JSON/],
    ["::tool calc [1]", /must be a JSON object/],
    ["::ask  | Yes", /::ask needs a question/],
    ["::delay soon", /::delay needs a whole number/],
    ["::words -1", /::words needs a whole number/],
    ["::words 10001", /from 0 to 10000/],
  ])("refuses %s", (message, error) => {
    expect(() => parseDirectives(message)).toThrow(SimModelError);
    expect(() => parseDirectives(message)).toThrow(error);
  });

  it("makes an unreadable directive fail the call with the reason", async () => {
    await expect(generateText({ model: createSimModel(), prompt: "::shout hi" })).rejects.toThrow(
      /sim model: unknown directive/,
    );
  });
});

describe("echo", () => {
  it("streams Echo: <message> word by word through streamText", async () => {
    const result = streamText({ model: createSimModel(), prompt: "hello there   world" });
    const parts = await collect(result.fullStream);
    expect(textDeltas(parts)).toEqual(["Echo: ", "hello ", "there   ", "world"]);
    expect(await result.text).toBe("Echo: hello there   world");
    expect(await result.finishReason).toBe("stop");
  });

  it("echoes only the latest user message, without its directive lines", async () => {
    const result = await generateText({
      model: createSimModel(),
      messages: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "Echo: first question" },
        { role: "user", content: "  second\n::delay 0\nquestion  " },
      ],
    });
    expect(result.text).toBe("Echo: second\nquestion");
  });

  it("is deterministic: the same prompt gives the same text, ids and usage", async () => {
    const run = async () => {
      const result = streamText({
        model: createSimModel(),
        prompt: '::tool calculator {"expression":"2*3"}',
        tools: { calculator },
        stopWhen: stepCountIs(5),
      });
      return {
        text: await result.text,
        ids: (await result.steps).map((step) => [step.response.id, ...step.toolCalls.map((call) => call.toolCallId)]),
        usage: await result.totalUsage,
      };
    };
    const first = await run();
    expect(first.ids.flat().every((id) => id.startsWith("sim-"))).toBe(true);
    expect(await run()).toEqual(first);
  });
});

describe("::tool", () => {
  it("calls the tool, then answers Tool NAME returned <result>", async () => {
    const execute = vi.spyOn(calculator, "execute");
    const result = streamText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"6*7"}',
      tools: { calculator },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('Tool calculator returned {"result":42}');
    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0]!.toolCalls).toMatchObject([{ toolCallId: "sim-call-1", toolName: "calculator", input: { expression: "6*7" } }]);
    expect(execute).toHaveBeenCalledWith({ expression: "6*7" }, expect.anything());
    execute.mockRestore();
  });

  it("reports a text result as it is", async () => {
    const echoTool = tool({ inputSchema: z.object({}), execute: async () => "plain words" });
    const result = await generateText({
      model: createSimModel(),
      prompt: "::tool note",
      tools: { note: echoTool },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("Tool note returned plain words");
  });

  it("calls several tools one per step, in order, and reports every result", async () => {
    const upper = tool({
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => text.toUpperCase(),
    });
    const result = streamText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"2*5"}\n::tool upper {"text":"hi"}',
      tools: { calculator, upper },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('Tool calculator returned {"result":10}\nTool upper returned HI');
    const steps = await result.steps;
    expect(steps.map((step) => step.toolCalls.map((call) => [call.toolCallId, call.toolName]))).toEqual([
      [["sim-call-1", "calculator"]],
      [["sim-call-2", "upper"]],
      [],
    ]);
  });

  it("says a tool failed when its result is an error", async () => {
    const broken = tool({
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error("disk on fire");
      },
    });
    const result = await generateText({
      model: createSimModel(),
      prompt: "::tool broken",
      tools: { broken },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("Tool broken failed: disk on fire");
  });
});

describe("::ask", () => {
  it("asks AskUserQuestion, then answers You chose <label> once the answer is in the prompt", async () => {
    const model = createSimModel();
    const messages: ModelMessage[] = [{ role: "user", content: "::ask Which colour? | Red | Blue" }];
    const asked = streamText({ model, messages, tools: { AskUserQuestion: askUserQuestion }, stopWhen: stepCountIs(5) });
    expect(await asked.finishReason).toBe("tool-calls");
    const [call] = await asked.toolCalls;
    expect(call).toMatchObject({
      toolCallId: "sim-call-1",
      toolName: "AskUserQuestion",
      input: { questions: [{ question: "Which colour?", options: [{ label: "Red" }, { label: "Blue" }] }] },
    });

    // The shape POST /runs/<id>/answer stores: question text -> chosen label.
    const answered = streamText({
      model,
      messages: [
        ...messages,
        ...(await asked.response).messages,
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "sim-call-1",
              toolName: "AskUserQuestion",
              output: { type: "json", value: { answers: { "Which colour?": "Blue" } } },
            },
          ],
        },
      ],
      tools: { AskUserQuestion: askUserQuestion },
      stopWhen: stepCountIs(5),
    });
    expect(await answered.text).toBe("You chose Blue");
  });

  it("accepts a plain string answer from a tool", async () => {
    const result = await generateText({
      model: createSimModel(),
      prompt: "::ask Size? | S | M",
      tools: { AskUserQuestion: tool({ inputSchema: z.looseObject({}), execute: async () => "M" }) },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("You chose M");
  });

  it.each<[LanguageModelV3ToolResultOutput, string]>([
    [{ type: "text", value: "Red" }, "Red"],
    [{ type: "text", value: '{"answers":{"Q?":"Red"}}' }, "Red"],
    [{ type: "json", value: { answers: { "Another key": "Red" } } }, "Red"],
    [{ type: "json", value: { answers: { "Q?": { label: "Red" } } } }, "Red"],
    [{ type: "json", value: { answers: { "Q?": ["Red", "Blue"] } } }, "Red"],
    [{ type: "json", value: { answer: "Red" } }, "Red"],
    [{ type: "json", value: { label: "Red" } }, "Red"],
    [{ type: "json", value: { something: 1 } }, '{"something":1}'],
  ])("reads the label from %j", (output, label) => {
    const reply = simReply({
      prompt: [
        { role: "user", content: [{ type: "text", text: "::ask Q? | Red | Blue" }] },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "AskUserQuestion", input: {} }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "AskUserQuestion", output }] },
      ],
    });
    expect(reply).toMatchObject({ type: "answer", text: `You chose ${label}`, toolCalls: [] });
  });
});

describe("::fail", () => {
  it("surfaces an error whose message is MESSAGE through streamText", async () => {
    const errors: unknown[] = [];
    const result = streamText({
      model: createSimModel(),
      prompt: "::fail boom",
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const parts = await collect(result.fullStream);
    const errorParts = parts.filter((part) => part.type === "error");
    expect(errorParts).toHaveLength(1);
    expect(errorParts[0].error).toBeInstanceOf(SimModelError);
    expect(errorParts[0].error.message).toBe("boom");
    expect(errors.map((error) => (error as Error).message)).toEqual(["boom"]);
    expect(textDeltas(parts)).toEqual([]);
    await expect(result.text).rejects.toThrow();
  });

  it("rejects generateText with MESSAGE, without retrying", async () => {
    const model = createSimModel();
    const doGenerate = vi.spyOn(model, "doGenerate");
    await expect(generateText({ model, prompt: "text\n::fail the model is down" })).rejects.toThrow(
      new SimModelError("the model is down"),
    );
    expect(doGenerate).toHaveBeenCalledTimes(1);
  });
});

describe("::delay", () => {
  it("waits MS between streamed words, through the injected sleep", async () => {
    const { calls, sleep, now } = fakeSleep();
    const result = streamText({ model: createSimModel({ sleep, now }), prompt: "::delay 25\none two three" });
    expect(await result.text).toBe("Echo: one two three");
    // Four words, three gaps.
    expect(calls).toEqual([25, 25, 25]);
  });

  it("waits the same way in generateText", async () => {
    const { calls, sleep, now } = fakeSleep();
    const result = await generateText({ model: createSimModel({ sleep, now }), prompt: "::delay 7\n::words 4" });
    expect(result.text).toBe("alpha bravo charlie delta");
    expect(calls).toEqual([7, 7, 7]);
  });

  it("keeps its own clock: a wait that ended late is followed by a shorter one, or none", async () => {
    // Each timer fires late by this much (a busy process), as the clock shows afterwards.
    const overrun = [0, 30, 250, 0];
    const calls: number[] = [];
    let clock = 0;
    const sleep: SimSleep = async (ms) => {
      clock += ms + (overrun[calls.length] ?? 0);
      calls.push(ms);
    };
    const result = streamText({ model: createSimModel({ sleep, now: () => clock }), prompt: "::delay 100\n::words 5" });
    expect(await result.text).toBe("alpha bravo charlie delta echo");
    // Words are due at 0, 100, 200, 300, 400. The second wait ended at 230, so the third is 70 long and
    // ends at 300 + 250 = 550, past the fifth word's due time: the last wait is 0.
    expect(calls).toEqual([100, 100, 70, 0]);
  });

  it("stops streaming when the call is aborted, even if the sleep ignores the signal", async () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const signals: AbortSignal[] = [];
    let clock = 0;
    const now = () => clock;
    const sleep: SimSleep = async (ms, signal) => {
      calls.push(ms);
      clock += ms;
      if (signal) signals.push(signal);
      if (calls.length === 3) controller.abort();
    };
    let aborted = false;
    const result = streamText({
      model: createSimModel({ sleep, now }),
      prompt: "::delay 40\n::words 50",
      abortSignal: controller.signal,
      onAbort: () => {
        aborted = true;
      },
    });
    const parts = await collect(result.fullStream);
    // The model stopped after the third wait: no fourth wait, no fourth word. (streamText may drop a word
    // the model had already queued, so the reader sees at most three.)
    expect(calls).toEqual([40, 40, 40]);
    expect(signals.at(-1)?.aborted).toBe(true);
    const deltas = textDeltas(parts);
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(deltas).toEqual(["alpha ", "bravo ", "charlie "].slice(0, deltas.length));
    expect(parts.at(-1)?.type).toBe("abort");
    expect(aborted).toBe(true);
  });

  it("stops a direct doStream at the next word once its signal aborts", async () => {
    const controller = new AbortController();
    const { calls, sleep, now } = fakeSleep();
    const { stream } = await createSimModel({ sleep, now }).doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "::delay 5\n::words 10" }] }],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    const deltas: string[] = [];
    let failure: unknown;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.type === "text-delta") {
          deltas.push(value.delta);
          if (deltas.length === 2) controller.abort();
        }
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ name: "AbortError" });
    // The stream reads one word ahead, so the word after the abort may already have been on its way.
    expect(deltas.length).toBeLessThanOrEqual(3);
    expect(deltas).toEqual(["alpha ", "bravo ", "charlie "].slice(0, deltas.length));
    expect(calls.length).toBeLessThanOrEqual(3);
  });

  it("cuts the default (real) sleep short on abort", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const result = streamText({ model: createSimModel(), prompt: "::delay 60000\n::words 3", abortSignal: controller.signal });
    const deltas: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        deltas.push(part.text);
        controller.abort();
      }
    }
    expect(deltas).toEqual(["alpha "]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses to start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      createSimModel().doStream({ prompt: [], abortSignal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("::tools", () => {
  it("lists the names of the tools the call offers, sorted, after the echo", async () => {
    const result = await generateText({
      model: createSimModel(),
      prompt: "what can you use?\n::tools",
      tools: { calculator, AskUserQuestion: askUserQuestion },
    });
    expect(result.text).toBe("Echo: what can you use?\nTools: AskUserQuestion, calculator");
  });

  it("says (none) for a call without tools, and follows the tool lines when it has some", async () => {
    expect((await generateText({ model: createSimModel(), prompt: "::tools" })).text).toBe("Echo:\nTools: (none)");
    const result = await generateText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"6*7"}\n::tools',
      tools: { calculator },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Tool calculator returned {"result":42}\nTools: calculator');
  });

  it("is parsed apart from ::tool", () => {
    expect(parseDirectives("::tools\n::tool ping").directives).toEqual([{ kind: "tools" }, { kind: "tool", toolName: "ping", input: {} }]);
  });
});

describe("::tool *SUFFIX", () => {
  const upper = tool({ description: "upper", inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text.toUpperCase() });
  it("calls the first offered tool, in name order, whose name ends with the suffix", async () => {
    const result = await generateText({
      model: createSimModel(),
      prompt: '::tool *__upper {"text":"hi"}',
      tools: { srv9__upper: upper, srv12__upper: upper, calculator },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("Tool srv12__upper returned HI");
  });

  it("keeps the name as written when no offered tool matches, so the call fails as an unknown tool", async () => {
    const result = await generateText({ model: createSimModel(), prompt: "::tool *__nothing", tools: { calculator }, stopWhen: stepCountIs(3) });
    expect(result.text).toMatch(/^Tool \*__nothing failed: /);
  });
});

describe("::words", () => {
  it("streams exactly N words", async () => {
    const result = streamText({ model: createSimModel(), prompt: "ignored text\n::words 200" });
    const parts = await collect(result.fullStream);
    const text = await result.text;
    expect(text.split(" ")).toHaveLength(200);
    expect(text.split(/\s+/).every((word) => /^[a-z]+$/.test(word))).toBe(true);
    expect(textDeltas(parts)).toHaveLength(200);
    expect(textDeltas(parts).join("")).toBe(text);
  });

  it("gives no text for ::words 0", async () => {
    const result = await generateText({ model: createSimModel(), prompt: "::words 0" });
    expect(result.text).toBe("");
  });
});

describe("::skill", () => {
  it("reports each skill section of the system prompt with its text, up to the next heading", async () => {
    const system = "You are Ava.\n\n## Skill: Weekly report\nList the wins.\n\nThen   the risks.\n\n## Built-in tools\nYou can use: memory.";
    const result = await generateText({ model: createSimModel(), system, prompt: "/weekly-report now\n::skill" });
    expect(result.text).toBe("Echo: /weekly-report now\nSkill Weekly report: List the wins. Then the risks.");
  });

  it("says No skill. without one, and cuts a long section at 300 characters", async () => {
    expect((await generateText({ model: createSimModel(), system: "You are Ava.", prompt: "::skill" })).text).toBe("Echo:\nNo skill.");
    const long = await generateText({ model: createSimModel(), system: `## Skill: Long\n${"x".repeat(400)}`, prompt: "::skill" });
    expect(long.text).toBe(`Echo:\nSkill Long: ${"x".repeat(299)}…`);
  });
});

describe("plan mode", () => {
  const inlayPlan = { inlay: { planMode: true } };

  it("writes a numbered plan and asks for approval before anything else", async () => {
    const execute = vi.fn(async () => ({ result: 1 }));
    const result = streamText({
      model: createSimModel(),
      prompt: 'Work out the product\n::tool calculator {"expression":"6*7"}',
      tools: { AskUserQuestion: askUserQuestion, calculator: tool({ inputSchema: z.object({ expression: z.string() }), execute }) },
      providerOptions: inlayPlan,
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe(
      '1. Understand the request: "Work out the product".\n2. Call the tool calculator.\n3. Report the results.',
    );
    expect(await result.toolCalls).toMatchObject([
      {
        toolName: "AskUserQuestion",
        input: { questions: [{ question: "Plan Approval", options: [{ label: "Approve" }, { label: "Revise" }] }] },
      },
    ]);
    expect(execute).not.toHaveBeenCalled();
  });

  it("proceeds once the answer is Approve", async () => {
    const answers: string[] = [];
    const approving = tool({
      inputSchema: z.looseObject({}),
      execute: async () => {
        answers.push("Approve");
        return { answers: { "Plan Approval": "Approve" } };
      },
    });
    const result = streamText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"6*7"}',
      tools: { AskUserQuestion: approving, calculator },
      providerOptions: inlayPlan,
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('Tool calculator returned {"result":42}');
    const steps = await result.steps;
    expect(steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual([
      ["AskUserQuestion"],
      ["calculator"],
      [],
    ]);
    expect(answers).toEqual(["Approve"]);
  });

  it("does not plan again after an approval earlier in the conversation", () => {
    const reply = simReply({
      providerOptions: inlayPlan,
      prompt: [
        { role: "user", content: [{ type: "text", text: "first" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "1. Understand the request." },
            {
              type: "tool-call",
              toolCallId: "sim-call-1",
              toolName: "AskUserQuestion",
              input: { questions: [{ question: "Plan Approval", options: [{ label: "Approve" }, { label: "Revise" }] }] },
            },
          ],
        },
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "sim-call-1", toolName: "AskUserQuestion", output: { type: "text", value: "approve" } }],
        },
        { role: "assistant", content: [{ type: "text", text: "Echo: first" }] },
        { role: "user", content: [{ type: "text", text: "second" }] },
      ],
    });
    expect(reply).toMatchObject({ type: "answer", text: "Echo: second", toolCalls: [] });
  });

  it("stops and asks what to change when the answer is Revise", async () => {
    const result = await generateText({
      model: createSimModel(),
      prompt: "tidy up",
      tools: {
        AskUserQuestion: tool({ inputSchema: z.looseObject({}), execute: async () => ({ answers: { "Plan Approval": "Revise" } }) }),
      },
      providerOptions: inlayPlan,
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.text).toBe('1. Understand the request: "tidy up".\n2. Answer with an echo of the message.');
    expect(result.text).toBe("The plan was not approved (Revise). Tell me what to change and I will write a new plan.");
  });

  it("is off without the inlay provider option", async () => {
    const result = await generateText({ model: createSimModel(), prompt: "hi", providerOptions: { inlay: { planMode: false } } });
    expect(result.text).toBe("Echo: hi");
  });
});

describe("structured output", () => {
  const schema = z.object({
    title: z.string(),
    count: z.number().int(),
    score: z.number().min(3).max(10),
    done: z.boolean(),
    kind: z.enum(["bug", "feature"]),
    tags: z.array(z.string()).min(2),
    owner: z.object({ email: z.email(), id: z.uuid(), note: z.string().optional() }),
    parent: z.string().nullable(),
  });
  const expected = {
    title: "sim",
    count: 0,
    score: 3,
    done: true,
    kind: "bug",
    tags: ["sim", "sim"],
    owner: { email: "sim@example.com", id: "00000000-0000-4000-8000-000000000000", note: "sim" },
    parent: "sim",
  };

  it("answers a JSON object valid against the schema through streamText", async () => {
    const result = streamText({ model: createSimModel(), prompt: "describe the issue", output: Output.object({ schema }) });
    const output = await result.output;
    expect(schema.parse(output)).toEqual(expected);
    expect(JSON.parse(await result.text)).toEqual(expected);
  });

  it("answers the same object through generateText, after running the tools", async () => {
    const result = await generateText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"1*1"}',
      tools: { calculator },
      output: Output.object({ schema }),
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.output).toEqual(expected);
  });

  it("answers {} for a JSON response without a schema", () => {
    const reply = simReply({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      responseFormat: { type: "json" },
    });
    expect(reply).toMatchObject({ type: "answer", text: "{}" });
  });
});

describe("usage", () => {
  it("counts ceil(characters / 4) of the prompt and of the answer", async () => {
    const result = await generateText({ model: createSimModel(), system: "Be brief.", prompt: "hello world" });
    // The prompt as text: "Be brief.\nhello world" (21 characters); the answer "Echo: hello world" (17).
    expect(result.usage.inputTokens).toBe(6);
    expect(result.usage.outputTokens).toBe(5);
    expect(result.usage.totalTokens).toBe(11);
  });

  it("counts tool calls and results as text, step by step", async () => {
    const result = streamText({
      model: createSimModel(),
      prompt: '::tool calculator {"expression":"6*7"}',
      tools: { calculator },
      stopWhen: stepCountIs(5),
    });
    const [first, second] = await result.steps;
    const call = 'calculator {"expression":"6*7"}';
    const answer = 'Tool calculator returned {"result":42}';
    expect(first!.usage).toMatchObject({ inputTokens: tokens('::tool calculator {"expression":"6*7"}'), outputTokens: tokens(call) });
    expect(second!.usage).toMatchObject({
      inputTokens: tokens(`::tool calculator {"expression":"6*7"}\n${call}\ncalculator {"result":42}`),
      outputTokens: tokens(answer),
    });
    expect((await result.totalUsage).inputTokens).toBe(first!.usage.inputTokens! + second!.usage.inputTokens!);
  });
});

describe("a partial answer", () => {
  const words = (text: string) => text.trim().split(/\s+/);
  const partialOf = (count: number) => `${wordList(count)} `;

  it("continues after it: ::words 120 resumed after 40 words streams words 41 to 120, and counts only those as produced", async () => {
    const partial = partialOf(40);
    const messages: ModelMessage[] = [
      { role: "user", content: "::words 120" },
      { role: "assistant", content: [{ type: "text", text: partial }] },
    ];
    const result = streamText({ model: createSimModel(), messages });
    const said = textDeltas(await collect(result.fullStream)).join("");
    expect(words(said)).toEqual(words(wordList(120)).slice(40));
    expect(partial + said).toBe(wordList(120));
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(tokens(said));
    expect(usage.inputTokens).toBe(tokens(`::words 120\n${partial}`));
  });

  it("matches a partial sent without its trailing space", () => {
    const text = simReply({
      prompt: [
        { role: "user", content: [{ type: "text", text: "::words 3" }] },
        { role: "assistant", content: [{ type: "text", text: "alpha" }] },
      ],
    });
    expect(text).toMatchObject({ type: "answer", text: " bravo charlie" });
  });

  it("gives the whole answer after a partial that is not its start", () => {
    const reply = simReply({
      prompt: [
        { role: "user", content: [{ type: "text", text: "::words 2" }] },
        { role: "assistant", content: [{ type: "text", text: "zulu " }] },
      ],
    });
    expect(reply).toMatchObject({ type: "answer", text: "alpha bravo" });
  });
});

describe("splitWords", () => {
  it("gives chunks that join back to the text", () => {
    const text = "  Echo: a\nb  c ";
    expect(splitWords(text)).toEqual(["  Echo: ", "a\n", "b  ", "c "]);
    expect(splitWords(text).join("")).toBe(text);
    expect(splitWords("")).toEqual([]);
  });
});
