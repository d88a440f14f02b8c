// The graph the LangGraph API server runs for `npm run bench -- peers`: one node calling a fake chat
// model that streams the shared words (fake-words.mjs) as token chunks, like a provider's model would.
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { pacedWords } from "./fake-words.mjs";

class FakeWordsChatModel extends BaseChatModel {
  _llmType() {
    return "fake-words";
  }

  async _generate() {
    let text = "";
    for await (const word of pacedWords()) text += word;
    return { generations: [{ text, message: new AIMessage(text) }] };
  }

  async *_streamResponseChunks(_messages, _options, runManager) {
    for await (const word of pacedWords()) {
      const chunk = new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

const model = new FakeWordsChatModel({});

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge(START, "model")
  .compile();
