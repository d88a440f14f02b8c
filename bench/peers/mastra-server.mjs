// Child process of bench/peer-runs.ts: Mastra's HTTP server (createNodeServer of @mastra/deployer, what
// a `mastra build` output starts) on a loopback port, with one agent on a fake AI SDK v5 model that
// streams the shared words (fake-words.mjs). No storage is configured, as in Mastra's default: the
// stream endpoint keeps nothing. Prints one JSON line when listening.
import net from "node:net";
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { createNodeServer } from "@mastra/deployer/server";
import { DELAY_MS, WORDS, pacedWords } from "./fake-words.mjs";

const usage = { inputTokens: 1, outputTokens: WORDS, totalTokens: WORDS + 1 };

/** A LanguageModelV2 (the AI SDK v5 interface Mastra 0.24 drives) with no network. */
const fakeModel = {
  specificationVersion: "v2",
  provider: "bench",
  modelId: "fake-words",
  supportedUrls: {},
  async doGenerate() {
    let text = "";
    for await (const word of pacedWords(WORDS, DELAY_MS)) text += word;
    return { content: [{ type: "text", text }], finishReason: "stop", usage, warnings: [] };
  },
  async doStream() {
    const words = pacedWords(WORDS, DELAY_MS);
    const stream = new ReadableStream({
      async start(controller) {
        controller.enqueue({ type: "stream-start", warnings: [] });
        controller.enqueue({ type: "text-start", id: "t" });
        for await (const word of words) controller.enqueue({ type: "text-delta", id: "t", delta: word });
        controller.enqueue({ type: "text-end", id: "t" });
        controller.enqueue({ type: "finish", finishReason: "stop", usage });
        controller.close();
      },
    });
    return { stream };
  },
};

const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const mastra = new Mastra({
  agents: { bench: new Agent({ name: "bench", instructions: "Answer.", model: fakeModel }) },
  server: { host: "127.0.0.1", port },
  logger: false,
  telemetry: { enabled: false },
});
const server = await createNodeServer(mastra, { tools: {} });
console.log(JSON.stringify({ base: `http://127.0.0.1:${port}` }));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
