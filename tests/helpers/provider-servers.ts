// Local stand-ins for the model providers' HTTP APIs, on a loopback port, so the real provider
// packages can be driven end to end without a network. Each server plays a script of turns (one
// per request), answers streaming and non-streaming calls in the provider's own wire format, and
// records every request it gets.
//
// Wire formats, as the real APIs send them:
// - "openai-chat": POST {base}/chat/completions. Streams are `data: {chat.completion.chunk}` frames
//   with choices[0].delta (content, or tool_calls whose arguments arrive in pieces), a frame with the
//   finish_reason, a last frame with `choices: []` and the usage (stream_options.include_usage), then
//   `data: [DONE]`. The "ollama" flavour sends a tool call's arguments whole, as Ollama does.
// - "anthropic-messages": POST {base}/messages. Streams are named events: message_start (input
//   usage), ping, content_block_start / content_block_delta (text_delta, input_json_delta) /
//   content_block_stop per block, message_delta (stop_reason, output usage), message_stop.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedUsage {
  input: number;
  output: number;
}

/** What is wrong with a request body, or undefined when it is as expected. */
export type RequestCheck = (body: any) => string | undefined;

export type ScriptedTurn =
  | {
      kind: "tool-call";
      id: string;
      name: string;
      input: Record<string, unknown>;
      /** Text the model says before calling the tool (Claude often does). */
      preamble?: string;
      usage: ScriptedUsage;
      check?: RequestCheck;
    }
  | { kind: "text"; text: string; usage: ScriptedUsage; check?: RequestCheck };

export interface RecordedRequest {
  method: string;
  /** The path with its query, as received. */
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface ProviderServerOptions {
  wire: "openai-chat" | "anthropic-messages";
  flavour?: "openai" | "ollama";
  /** The path prefix clients must put in their base URL, e.g. /proxy/v1. */
  basePath: string;
  turns: ScriptedTurn[];
  /** The only key the server accepts (Authorization: Bearer, or x-api-key); others get a 401. Unset: any. */
  apiKey?: string;
}

export interface ProviderServer {
  /** http://127.0.0.1:<port><basePath> */
  baseUrl: string;
  requests: RecordedRequest[];
  /** What the turns' checks (and the router) found wrong; empty when every request was as expected. */
  problems: string[];
  close(): Promise<void>;
}

const CREATED = 1_767_225_600;

export async function startProviderServer(options: ProviderServerOptions): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const endpoint = `${options.basePath}${options.wire === "openai-chat" ? "/chat/completions" : "/messages"}`;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      problems.push(`server error: ${String(error)}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const raw = await readBody(request);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const index = requests.length;
    requests.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });

    const fail = (status: number, message: string) => {
      problems.push(`request ${index + 1}: ${message}`);
      sendError(response, options.wire, status, message);
    };
    if (options.apiKey !== undefined) {
      const sent = request.headers["x-api-key"] ?? request.headers.authorization?.replace(/^Bearer /, "");
      // A refused key is what the provider answers, not a problem of the test's script.
      if (sent !== options.apiKey) return sendError(response, options.wire, 401, "Incorrect API key provided");
    }
    if (request.method !== "POST" || request.url !== endpoint) {
      return fail(404, `unexpected ${request.method} ${request.url} (expected POST ${endpoint})`);
    }
    const turn = options.turns[index];
    if (!turn) return fail(500, `the script has ${options.turns.length} turns, this is request ${index + 1}`);
    const problem = turn.check?.(body);
    if (problem) return fail(400, problem);

    const model = String(body.model);
    if (options.wire === "openai-chat") {
      if (body.stream === true) {
        const chunks = openaiChunks(turn, model, index, options.flavour ?? "openai");
        await streamFrames(response, [...chunks.map(openaiFrame), "data: [DONE]\n\n"]);
      } else {
        sendJson(response, openaiCompletion(turn, model, index));
      }
    } else if (body.stream === true) {
      await streamFrames(response, anthropicEvents(turn, model, index).map(anthropicFrame));
    } else {
      sendJson(response, anthropicMessage(turn, model, index));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${options.basePath}`,
    requests,
    problems,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

// --- OpenAI Chat Completions -----------------------------------------------------------------------

function openaiUsage(usage: ScriptedUsage) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openaiChunks(turn: ScriptedTurn, model: string, index: number, flavour: "openai" | "ollama"): unknown[] {
  const base = {
    id: `chatcmpl-${index + 1}`,
    object: "chat.completion.chunk",
    created: CREATED,
    model,
    system_fingerprint: flavour === "ollama" ? "fp_ollama" : "fp_inlay_test",
  };
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(flavour === "openai" ? { usage: null } : {}),
  });
  const chunks: unknown[] = [];
  if (turn.kind === "tool-call") {
    const args = JSON.stringify(turn.input);
    // OpenAI names the call first and streams its arguments in pieces; Ollama sends them whole.
    const pieces = flavour === "ollama" ? [args] : ["", ...slices(args, 7)];
    const [first, ...rest] = pieces;
    chunks.push(
      chunk({
        role: "assistant",
        content: flavour === "ollama" ? "" : null,
        tool_calls: [{ index: 0, id: turn.id, type: "function", function: { name: turn.name, arguments: first } }],
        ...(flavour === "openai" ? { refusal: null } : {}),
      }),
    );
    for (const piece of rest) chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    chunks.push(chunk({}, "tool_calls"));
  } else {
    chunks.push(chunk({ role: "assistant", content: "", ...(flavour === "openai" ? { refusal: null } : {}) }));
    for (const word of words(turn.text)) chunks.push(chunk({ content: word }));
    chunks.push(chunk({}, "stop"));
  }
  chunks.push({ ...base, choices: [], usage: openaiUsage(turn.usage) });
  return chunks;
}

function openaiCompletion(turn: ScriptedTurn, model: string, index: number) {
  const message =
    turn.kind === "tool-call"
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: turn.id, type: "function", function: { name: turn.name, arguments: JSON.stringify(turn.input) } },
          ],
          refusal: null,
          annotations: [],
        }
      : { role: "assistant", content: turn.text, refusal: null, annotations: [] };
  return {
    id: `chatcmpl-${index + 1}`,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: turn.kind === "tool-call" ? "tool_calls" : "stop" },
    ],
    usage: openaiUsage(turn.usage),
    service_tier: "default",
    system_fingerprint: "fp_inlay_test",
  };
}

const openaiFrame = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;

// --- Anthropic Messages ----------------------------------------------------------------------------

function anthropicEvents(turn: ScriptedTurn, model: string, index: number): { type: string }[] {
  const events: { type: string; [key: string]: unknown }[] = [
    {
      type: "message_start",
      message: {
        id: `msg_${index + 1}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: turn.usage.input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    },
    { type: "ping" },
  ];
  let block = 0;
  const textBlock = (text: string) => {
    events.push({ type: "content_block_start", index: block, content_block: { type: "text", text: "" } });
    for (const word of words(text)) {
      events.push({ type: "content_block_delta", index: block, delta: { type: "text_delta", text: word } });
    }
    events.push({ type: "content_block_stop", index: block++ });
  };
  if (turn.kind === "tool-call") {
    if (turn.preamble) textBlock(turn.preamble);
    events.push({
      type: "content_block_start",
      index: block,
      content_block: { type: "tool_use", id: turn.id, name: turn.name, input: {} },
    });
    for (const piece of ["", ...slices(JSON.stringify(turn.input), 7)]) {
      const delta = { type: "input_json_delta", partial_json: piece };
      events.push({ type: "content_block_delta", index: block, delta });
    }
    events.push({ type: "content_block_stop", index: block++ });
  } else {
    textBlock(turn.text);
  }
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: turn.kind === "tool-call" ? "tool_use" : "end_turn", stop_sequence: null },
      usage: {
        input_tokens: turn.usage.input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: turn.usage.output,
      },
    },
    { type: "message_stop" },
  );
  return events;
}

function anthropicMessage(turn: ScriptedTurn, model: string, index: number) {
  const content =
    turn.kind === "tool-call"
      ? [
          ...(turn.preamble ? [{ type: "text", text: turn.preamble }] : []),
          { type: "tool_use", id: turn.id, name: turn.name, input: turn.input },
        ]
      : [{ type: "text", text: turn.text }];
  return {
    id: `msg_${index + 1}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.kind === "tool-call" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: turn.usage.input,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: turn.usage.output,
      service_tier: "standard",
    },
  };
}

const anthropicFrame = (event: { type: string }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

// --- Plumbing --------------------------------------------------------------------------------------

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, body: unknown, status = 200) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, wire: ProviderServerOptions["wire"], status: number, message: string) {
  if (wire === "openai-chat") {
    sendJson(response, { error: { message, type: "invalid_request_error", param: null, code: null } }, status);
  } else {
    sendJson(response, { type: "error", error: { type: "invalid_request_error", message } }, status);
  }
}

/** Writes each SSE frame on its own, yielding between them, so clients see the stream arrive in pieces. */
async function streamFrames(response: ServerResponse, frames: string[]) {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (const frame of frames) {
    response.write(frame);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

const slices = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** Words with their trailing space, the way models stream text. */
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];
