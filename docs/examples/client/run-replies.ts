import type { PlatformClient } from "@inlay/core/platform-client";

export default async function runRepliesExample(platform: PlatformClient, agentId: number) {
  // #region docs
  const client = platform.forUser("user-42");

  // An agent's first session: it introduces itself (streams like runs.create).
  const intro = await client.runs.firstSession({ teammate_id: agentId });
  await intro.toArray();

  // Attachments: Files or Blobs (web APIs only), sent as multipart with the run's JSON.
  const notes = new File(["the secret word is plover"], "notes.txt", { type: "text/plain" });
  const stream = await client.runs.createWithFiles({ teammate_id: agentId, message: "read this", files: [notes] });
  for await (const frame of stream) if (frame.type === "done") console.log(frame.completion_state);

  // A reply continues the same run; its stream holds the reply's frames only.
  let answer = "";
  const reply = await client.runs.reply(stream.runId!, { message: "and now?" });
  for await (const frame of reply) if (frame.type === "content_block_delta") answer += frame.delta.text;
  await client.runs.replyWithFiles(stream.runId!, { message: "one more", files: [notes], stream: false });

  // A run's mode applies from its next start (a resume or a reply); 409 once the run is over.
  // Switched to autonomous while it waits for an approval, it goes on by itself.
  const guarded = await client.runs.create({
    teammate_id: agentId,
    message: '::tool calculator {"expression":"6*7"}',
    permission_mode: "approval",
  });
  for await (const frame of guarded) {
    if (frame.type === "permission_request") await client.runs.setPermissionMode(guarded.runId!, "autonomous");
  }
  // #endregion
  return { introId: intro.runId!, runId: stream.runId!, answer, guardedId: guarded.runId! };
}
