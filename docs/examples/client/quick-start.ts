// docs/client.md, "Quick start". The region between the markers is in the doc verbatim
// (tests/integration/client/docs-examples.test.ts checks it and runs this file).
import { createPlatformClient } from "@inlay/core/platform-client";

export default async function quickStart(baseUrl: string, apiKey: string) {
  // #region docs
  const platform = createPlatformClient({ baseUrl, apiKey });
  const client = platform.forUser("user-42"); // every call below is scoped to this end-user

  const agent = await client.agents.create({ name: "Helper", default_permission_mode: "autonomous" });
  const stream = await client.runs.create({ teammate_id: agent.id, message: "hello world" });
  let text = "";
  for await (const frame of stream) {
    if (frame.type === "content_block_delta") text += frame.delta.text;
    if (frame.type === "done") console.log(`run ${stream.runId}: ${frame.completion_state}`);
  }
  // #endregion
  return text;
}
