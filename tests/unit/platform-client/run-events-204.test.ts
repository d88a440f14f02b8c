// GET /runs/{run_id}/events answers 204 when the run is over and nothing follows the cursor: the
// client's run stream takes it as the end of the stream (no frames, no reconnect, no error); an empty
// 200 is a dropped stream and reconnects.
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "@inlay/core/platform-client";

function platformAnswering(answer: () => Response) {
  const calls: { path: string; lastEventId: string | null }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    calls.push({ path: new URL(request.url).pathname.replace("/api/v2", ""), lastEventId: request.headers.get("last-event-id") });
    return answer();
  };
  const client = createPlatformClient({ baseUrl: "http://platform.test/api/v2", apiKey: "sk_test", fetch, maxRetries: 2 }).forUser("eu_1");
  return { calls, client };
}

describe("a run stream answered 204", () => {
  it("ends with no frames, after one request", async () => {
    const { calls, client } = platformAnswering(() => new Response(null, { status: 204 }));
    const stream = client.runs.events(7, { lastEventId: "42" });
    expect(await stream.toArray()).toEqual([]);
    expect(calls).toEqual([{ path: "/runs/7/events", lastEventId: "42" }]);
    expect(stream.reconnects).toBe(0);
  });

  it("still reads a 200 stream to its done frame", async () => {
    const sse = 'id: 1\ndata: {"type":"content_block_delta","delta":{"text":"hi"}}\n\nid: 2\ndata: {"type":"done","stop_reason":"end_turn"}\n\n';
    const { client } = platformAnswering(() => new Response(sse, { headers: { "content-type": "text/event-stream" } }));
    const stream = client.runs.events(7);
    expect((await stream.toArray()).map((frame) => frame.type)).toEqual(["content_block_delta", "done"]);
    expect(stream.lastEventId).toBe("2");
  });

  it("takes a 200 that ends empty for a dropped stream (an instance draining), and reconnects where it was", async () => {
    let answers = 0;
    const rest = 'id: 43\ndata: {"type":"content_block_delta","delta":{"text":"hi"}}\n\nid: 44\ndata: {"type":"done","stop_reason":"end_turn"}\n\n';
    const { calls, client } = platformAnswering(() =>
      ++answers === 1 ? new Response("", { headers: { "content-type": "text/event-stream" } }) : new Response(rest, { headers: { "content-type": "text/event-stream" } }),
    );
    const stream = client.runs.events(7, { lastEventId: "42" });
    expect((await stream.toArray()).map((frame) => frame.type)).toEqual(["content_block_delta", "done"]);
    expect(calls.map((call) => call.lastEventId)).toEqual(["42", "42"]);
    expect(stream.reconnects).toBe(1);
  });
});
