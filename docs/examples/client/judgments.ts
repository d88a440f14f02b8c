import type { PlatformClient } from "@inlay/core/platform-client";

export default async function judgmentsExample(platform: PlatformClient) {
  // #region docs
  const client = platform.forUser("user-42");
  const decision = await client.judgments.create(
    {
      mode: "decide",
      state: { ticket: "Parcel arrived broken, I want my money back" },
      questions: [
        { type: "choice", id: "team", prompt: "Which team takes it?", options: ["support", "billing"] },
        { type: "score", id: "urgency", prompt: "How urgent?", min: 1, max: 5 },
        { type: "noul", id: "refund", prompt: "Is a refund owed?" },
      ],
    },
    { idempotencyKey: "ticket-981-triage" }, // the same key and request replay the same judgment
  );
  const check = await client.judgments.create({
    mode: "verify",
    claims: [{ id: "broken", text: "The parcel arrived broken", evidence_ids: ["note"] }],
    evidence: [{ id: "note", text: "Courier note: box crushed on delivery" }], // or source: {type: "document", id}
  });
  const saved = await client.judgments.get(decision.id); // the same result, for 30 days
  const connection = await platform.judgments.connection.get(); // {connected, funding_source, model, …}
  // #endregion
  return { decision, check, saved, connection };
}
