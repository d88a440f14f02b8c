// POST /api/bench-floor {message}: the floor of the chat path for `npm run bench -- chat-burst chat-held`:
// the plain Next.js + AI SDK route (what Vercel's ai-chatbot returns), streamText on a model giving the
// sim model's answer at its pace (`::words N`, `::delay MS`: NATO words, word i due MS × i after the
// first), toUIMessageStreamResponse, no session, tenancy, ledger or persistence. A model of its own, as
// the framework reaches the platform's sim only through its API. 404 unless INLAY_BENCH_FLOOR is set,
// so a normal install never answers it.
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { streamText } from "ai";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const NATO = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
  "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
  "xray", "yankee", "zulu",
];
const MAX_WORDS = 10_000;

function pacedModel(message: string): LanguageModelV3 {
  const words = Math.min(MAX_WORDS, Number(/^::words\s+(\d+)/m.exec(message)?.[1] ?? 20));
  const delayMs = Number(/^::delay\s+(\d+)/m.exec(message)?.[1] ?? 0);
  const parts = async function* (): AsyncGenerator<LanguageModelV3StreamPart> {
    yield { type: "stream-start", warnings: [] };
    yield { type: "text-start", id: "floor" };
    let due = performance.now();
    for (let index = 0; index < words; index++) {
      if (index > 0 && delayMs > 0) {
        due += delayMs;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      }
      yield { type: "text-delta", id: "floor", delta: NATO[index % NATO.length] + (index < words - 1 ? " " : "") };
    }
    yield { type: "text-end", id: "floor" };
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: words, text: words, reasoning: 0 } };
    yield { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage };
  };
  return {
    specificationVersion: "v3",
    provider: "bench-floor",
    modelId: "paced-words",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("the floor model only streams")),
    doStream: async () => {
      const iterator = parts();
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const { value, done } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return { stream };
    },
  };
}

export async function POST(request: Request): Promise<Response> {
  if (!env.INLAY_BENCH_FLOOR) return new Response(null, { status: 404 });
  const { message } = (await request.json()) as { message?: unknown };
  if (typeof message !== "string") return new Response(null, { status: 422 });
  return streamText({ model: pacedModel(message), prompt: message }).toUIMessageStreamResponse();
}
