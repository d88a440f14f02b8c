import type { PlatformClient, Run } from "@inlay/core/platform-client";

export default async function runsExample(platform: PlatformClient, agentId: number) {
  // #region docs
  const client = platform.forUser("user-42");

  // Streaming (the default): typed frames; a dropped connection resumes by itself.
  const stream = await client.runs.create({ teammate_id: agentId, message: "::words 5" });
  for await (const frame of stream) {
    if (frame.type === "content_block_delta") console.log(frame.delta.text);
  }

  // Not streaming: the run, status running; poll it every 2 seconds (the spec's advice).
  let run: Run = await client.runs.create({ teammate_id: agentId, message: "hello", stream: false });
  while (run.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    run = await client.runs.get(run.id);
  }

  // The frames of any run, again, from an event id on (or from the start).
  const frames = await client.runs.events(run.id).toArray();
  // Its conversation as turns: what the end-user sent (start, replies, file names) and the agent's text.
  const { data: turns } = await client.runs.messages(run.id);

  const recent = await client.runs.list({ status: "completed", limit: 10 });
  const { needs_you } = await client.runs.activity();
  const { latest_updated_at } = await client.runs.check();
  // #endregion
  return { streamed: stream.runId, run, frames, turns, recent, needs_you, latest_updated_at };
}
