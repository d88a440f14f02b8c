import type { PlatformClient } from "@inlay/core/platform-client";

export default async function approvalsExample(platform: PlatformClient, agentId: number) {
  // #region docs
  const client = platform.forUser("user-42");
  const stream = await client.runs.create({
    teammate_id: agentId,
    message: '::tool calculator {"expression":"6*7"}',
    permission_mode: "approval",
  });
  let outcome = "";
  // The stream stays open while the run waits for a person, and goes on once it resumes.
  for await (const frame of stream) {
    if (frame.type === "permission_request" && frame.kind === "tool") {
      await client.runs.approve(stream.runId!, { request_id: frame.request_id, decision: "allow" });
    }
    // A question (kind "question") is answered with runs.answer(runId, { answers: { [question]: label } }).
    if (frame.type === "done") outcome = frame.completion_state;
  }
  const requests = await client.runs.permissions.list(stream.runId!);
  const waiting = await client.runs.needsYou().then((page) => page.data.length);
  // #endregion
  return { runId: stream.runId!, outcome, requests, waiting };
}
