// The real-provider path of the run runtime: languageModelFor() builds the real @ai-sdk provider
// models, and the ai SDK drives them through a two-step tool loop against local servers that speak
// each provider's wire format (tests/helpers/provider-servers.ts). Nothing leaves loopback: fetch is
// guarded, and any other destination is refused and recorded.
import { MockLanguageModelV3 } from "ai/test";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { languageModelFor, ModelUnavailableError } from "@/server/platform/models/providers";
import type { ModelSettings } from "@/server/platform/models/catalog";
import { startProviderServer, type ProviderServer, type ProviderServerOptions } from "../../helpers/provider-servers";

// --- Loopback only ---------------------------------------------------------------------------------

/** Requests refused because they were not for loopback: the URL and the headers they carried. */
const blocked: { url: string; headers: Headers }[] = [];
beforeAll(() => {
  const realFetch = globalThis.fetch;
  vi.stubGlobal("fetch", (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname !== "127.0.0.1") {
      blocked.push({ url: url.href, headers: new Headers(init?.headers) });
      return Promise.reject(new Error(`test guard: refused to reach ${url.href}`));
    }
    return realFetch(input, init);
  });
});
afterAll(() => {
  vi.unstubAllGlobals();
});

let servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  vi.unstubAllEnvs();
  expect(blocked).toEqual([]);
});

async function serve(options: ProviderServerOptions): Promise<ProviderServer> {
  const server = await startProviderServer(options);
  servers.push(server);
  return server;
}

// --- The scenario: ask for the weather, the model calls a tool, then answers with its result -------

const PROMPT = "What is the weather in Paris, in celsius?";
const CALL_ID = "call_weather_1";
const WEATHER_INPUT = { city: "Paris", unit: "celsius" };
const WEATHER_OUTPUT = { city: "Paris", temperature: 21, unit: "celsius", conditions: "sunny" };
const ANSWER = "It is 21 degrees and sunny in Paris.";
const USAGE = [
  { input: 61, output: 18 },
  { input: 104, output: 12 },
];

function weatherTool() {
  const calls: unknown[] = [];
  const getWeather = tool({
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) }),
    execute: async (input) => {
      calls.push(input);
      return { ...WEATHER_OUTPUT, city: input.city, unit: input.unit };
    },
  });
  return { calls, tools: { get_weather: getWeather } };
}

interface ProviderCase {
  name: string;
  /** The catalogue id the runtime asks for. */
  modelId: string;
  /** The model name the provider's API must receive. */
  wireModel: string;
  server: Omit<ProviderServerOptions, "turns">;
  settings(baseUrl: string): ModelSettings;
  /** The header that must carry the API key, and its value. */
  auth: [header: string, value: string];
  /** What Claude says before it calls a tool; the OpenAI wires send the call alone. */
  preamble?: string;
  toolsDeclared(body: any): string[];
  /** The tool result the request sends back for CALL_ID, parsed; undefined when there is none. */
  toolResult(body: any): unknown;
}

const sim = { provider: "sim", openaiConfigured: false, anthropicConfigured: false } as const;

const parseJson = (text: unknown) => {
  try {
    return typeof text === "string" ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

const openaiToolResult = (body: any) => {
  const message = body.messages?.find((entry: any) => entry.role === "tool" && entry.tool_call_id === CALL_ID);
  const call = body.messages?.find((entry: any) => entry.role === "assistant")?.tool_calls?.[0];
  if (!message || call?.id !== CALL_ID || parseJson(call.function.arguments)?.city !== "Paris") return undefined;
  return parseJson(message.content);
};

const cases: ProviderCase[] = [
  {
    name: "OpenAI (Chat Completions)",
    modelId: "openai/gpt-4.1-mini",
    wireModel: "gpt-4.1-mini",
    server: { wire: "openai-chat", basePath: "/openai-proxy/v1" },
    settings: (baseUrl) => ({ ...sim, openaiConfigured: true, openai: { apiKey: "sk-test-openai", baseUrl } }),
    auth: ["authorization", "Bearer sk-test-openai"],
    toolsDeclared: (body) => (body.tools ?? []).map((entry: any) => entry.function.name),
    toolResult: openaiToolResult,
  },
  {
    name: "Anthropic (Messages)",
    modelId: "anthropic/claude-sonnet-4-5",
    wireModel: "claude-sonnet-4-5",
    server: { wire: "anthropic-messages", basePath: "/anthropic-proxy/v1" },
    settings: (baseUrl) => ({
      ...sim,
      anthropicConfigured: true,
      anthropic: { apiKey: "sk-ant-test", baseUrl },
    }),
    auth: ["x-api-key", "sk-ant-test"],
    preamble: "Let me check the weather. ",
    toolsDeclared: (body) => (body.tools ?? []).map((entry: any) => entry.name),
    toolResult: (body) => {
      const [assistant, results] = (body.messages ?? []).slice(-2);
      const use = assistant?.content?.find((part: any) => part.type === "tool_use");
      const result = results?.content?.find((part: any) => part.type === "tool_result" && part.tool_use_id === CALL_ID);
      if (use?.id !== CALL_ID || use.input?.city !== "Paris" || !result) return undefined;
      const text = Array.isArray(result.content)
        ? result.content.map((part: any) => part.text).join("")
        : result.content;
      return parseJson(text);
    },
  },
  {
    name: "OpenAI-compatible (Ollama)",
    modelId: "openai-compatible/llama3.1",
    wireModel: "llama3.1",
    server: { wire: "openai-chat", flavour: "ollama", basePath: "/ollama/v1" },
    settings: (baseUrl) => ({
      ...sim,
      provider: "openai-compatible",
      compatibleModel: "llama3.1",
      openaiCompatible: { baseUrl, apiKey: "ollama-test-key" },
    }),
    auth: ["authorization", "Bearer ollama-test-key"],
    toolsDeclared: (body) => (body.tools ?? []).map((entry: any) => entry.function.name),
    toolResult: openaiToolResult,
  },
];

/**
 * First turn: the tool call (the request must declare the tool); second: the answer (the request must
 * carry the tool's result).
 */
function script(providerCase: ProviderCase): ProviderServerOptions {
  return {
    ...providerCase.server,
    turns: [
      {
        kind: "tool-call",
        id: CALL_ID,
        name: "get_weather",
        input: WEATHER_INPUT,
        preamble: providerCase.preamble,
        usage: USAGE[0]!,
        check: (body) =>
          providerCase.toolsDeclared(body).includes("get_weather") ? undefined : "get_weather is not declared",
      },
      {
        kind: "text",
        text: ANSWER,
        usage: USAGE[1]!,
        check: (body) => {
          const result = providerCase.toolResult(body);
          return JSON.stringify(result) === JSON.stringify(WEATHER_OUTPUT)
            ? undefined
            : `the tool result is missing or wrong: ${JSON.stringify(result)}`;
        },
      },
    ],
  };
}

function expectWireRequests(server: ProviderServer, providerCase: ProviderCase, stream: boolean) {
  expect(server.problems).toEqual([]);
  expect(server.requests).toHaveLength(2);
  const endpoint = providerCase.server.wire === "openai-chat" ? "/chat/completions" : "/messages";
  for (const request of server.requests) {
    expect(request.path).toBe(`${providerCase.server.basePath}${endpoint}`);
    expect(request.headers[providerCase.auth[0]]).toBe(providerCase.auth[1]);
    expect(request.body.model).toBe(providerCase.wireModel);
    expect(Boolean(request.body.stream)).toBe(stream);
  }
  if (providerCase.server.wire === "anthropic-messages") {
    expect(server.requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
  }
  if (stream && providerCase.server.wire === "openai-chat") {
    // Usage only arrives in a stream that asks for it.
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  }
}

const totalInput = USAGE[0]!.input + USAGE[1]!.input;
const totalOutput = USAGE[0]!.output + USAGE[1]!.output;

describe.each(cases)("$name", (providerCase) => {
  it("streams a tool call, runs the tool, sends its result back and streams the answer", async () => {
    const server = await serve(script(providerCase));
    const weather = weatherTool();
    const result = streamText({
      model: languageModelFor(providerCase.settings(server.baseUrl), providerCase.modelId),
      prompt: PROMPT,
      tools: weather.tools,
      stopWhen: stepCountIs(4),
      maxRetries: 0,
    });

    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);

    expect(pieces.join("")).toBe(`${providerCase.preamble ?? ""}${ANSWER}`);
    expect(pieces.length).toBeGreaterThan(3);
    expect(await result.text).toBe(ANSWER);
    expect(await result.finishReason).toBe("stop");
    expect(weather.calls).toEqual([WEATHER_INPUT]);

    const steps = await result.steps;
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(steps[0]!.toolCalls).toMatchObject([{ toolCallId: CALL_ID, toolName: "get_weather", input: WEATHER_INPUT }]);
    expect(steps[0]!.toolResults).toMatchObject([{ toolCallId: CALL_ID, output: WEATHER_OUTPUT }]);
    expect(steps.map((step) => [step.usage.inputTokens, step.usage.outputTokens])).toEqual(
      USAGE.map((usage) => [usage.input, usage.output]),
    );
    const usage = await result.totalUsage;
    expect(usage).toMatchObject({
      inputTokens: totalInput,
      outputTokens: totalOutput,
      totalTokens: totalInput + totalOutput,
    });

    expectWireRequests(server, providerCase, true);
  });

  it("does the same without streaming (generateText)", async () => {
    const server = await serve(script(providerCase));
    const weather = weatherTool();
    const result = await generateText({
      model: languageModelFor(providerCase.settings(server.baseUrl), providerCase.modelId),
      prompt: PROMPT,
      tools: weather.tools,
      stopWhen: stepCountIs(4),
      maxRetries: 0,
    });

    expect(result.text).toBe(ANSWER);
    expect(weather.calls).toEqual([WEATHER_INPUT]);
    expect(result.steps).toHaveLength(2);
    expect(result.totalUsage).toMatchObject({ inputTokens: totalInput, outputTokens: totalOutput });
    expectWireRequests(server, providerCase, false);
  });
});

describe("OpenAI-compatible without a key", () => {
  it("sends no Authorization header (Ollama needs none)", async () => {
    const server = await serve({
      wire: "openai-chat",
      flavour: "ollama",
      basePath: "/v1",
      turns: [{ kind: "text", text: "Hello there.", usage: { input: 5, output: 3 } }],
    });
    const settings: ModelSettings = {
      ...sim,
      compatibleModel: "qwen2.5",
      openaiCompatible: { baseUrl: server.baseUrl },
    };
    const result = await generateText({ model: languageModelFor(settings, "qwen2.5"), prompt: "Hi", maxRetries: 0 });

    expect(result.text).toBe("Hello there.");
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.body.model).toBe("qwen2.5");
  });
});

describe("languageModelFor", () => {
  const configured: ModelSettings = {
    provider: "openai",
    openaiConfigured: true,
    anthropicConfigured: true,
    compatibleModel: "llama3.1",
    openai: { apiKey: "sk-test-openai" },
    anthropic: { apiKey: "sk-ant-test" },
    openaiCompatible: { baseUrl: "http://127.0.0.1:9/v1" },
  };

  it("builds each provider's model for a catalogue id or alias", () => {
    expect(languageModelFor(configured, "openai/gpt-4.1")).toMatchObject({
      provider: "openai.chat",
      modelId: "gpt-4.1",
    });
    expect(languageModelFor(configured, "gpt-4o-mini")).toMatchObject({
      provider: "openai.chat",
      modelId: "gpt-4o-mini",
    });
    expect(languageModelFor(configured, "sonnet")).toMatchObject({
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
    });
    expect(languageModelFor(configured, "openai-compatible/llama3.1")).toMatchObject({
      provider: "openai-compatible.chat",
      modelId: "llama3.1",
    });
  });

  it("delegates inlay/sim to the sim factory it is given", () => {
    const simModel = new MockLanguageModelV3();
    const factory = vi.fn(() => simModel);
    expect(languageModelFor(configured, "inlay/sim", { sim: factory })).toBe(simModel);
    expect(languageModelFor(sim, "sim", { sim: factory })).toBe(simModel);
    expect(factory).toHaveBeenCalledTimes(2);
    expect(() => languageModelFor(sim, "inlay/sim")).toThrow(/needs the sim model/);
  });

  it("refuses ids the catalogue does not list", () => {
    for (const id of ["openai/gpt-9", "mistral/large", "openai-compatible/other", ""]) {
      expect(() => languageModelFor(configured, id)).toThrow(ModelUnavailableError);
    }
    // Listed only when configured.
    expect(() => languageModelFor(sim, "openai/gpt-4.1-mini")).toThrow(/Unknown model "openai\/gpt-4.1-mini": not in/);
  });

  it("refuses a listed model whose provider has no credentials, naming the variable to set", () => {
    const listedOnly: ModelSettings = {
      ...sim,
      openaiConfigured: true,
      anthropicConfigured: true,
      compatibleModel: "x",
    };
    expect(() => languageModelFor(listedOnly, "openai/gpt-4.1")).toThrow(/OPENAI_API_KEY/);
    expect(() => languageModelFor(listedOnly, "anthropic/claude-haiku-4-5")).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => languageModelFor(listedOnly, "openai-compatible/x")).toThrow(/OPENAI_COMPATIBLE_BASE_URL/);
    const error = (() => {
      try {
        languageModelFor(listedOnly, "haiku");
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error).toMatchObject({ modelId: "anthropic/claude-haiku-4-5" });
  });

  it("takes keys and endpoints from the settings only, never from the process environment", async () => {
    const server = await serve({ wire: "openai-chat", basePath: "/env/v1", turns: [] });
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("OPENAI_BASE_URL", server.baseUrl);
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.baseUrl);

    // No base URL in the settings: the public endpoint, which the guard refuses, rather than the env's.
    for (const id of ["openai/gpt-4.1-mini", "anthropic/claude-haiku-4-5"]) {
      await expect(
        generateText({ model: languageModelFor(configured, id), prompt: "Hi", maxRetries: 0 }),
      ).rejects.toThrow();
    }
    expect(blocked.map((request) => request.url)).toEqual([
      "https://api.openai.com/v1/chat/completions",
      "https://api.anthropic.com/v1/messages",
    ]);
    expect(blocked[0]!.headers.get("authorization")).toBe("Bearer sk-test-openai");
    expect(blocked[1]!.headers.get("x-api-key")).toBe("sk-ant-test");
    expect(server.requests).toEqual([]);
    blocked.length = 0;
  });
});
