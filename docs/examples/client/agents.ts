import type { PlatformClient } from "@inlay/core/platform-client";

export default async function agentsExample(platform: PlatformClient) {
  // #region docs
  const client = platform.forUser("user-42");
  const agent = await client.agents.create({ name: "Support", instructions: "Answer briefly." });
  await client.agents.update(agent.id, { goals: "Resolve the ticket" });

  for await (const each of client.agents.list({ limit: 50 })) console.log(each.id, each.name); // every page
  const { prompt } = await client.agents.systemPrompt.get(agent.id);
  const forced = await client.agents.systemPrompt.get(agent.id, { skill: "summarize" }); // what forcing it adds
  const documents = await client.agents.documents.listAll(agent.id);

  await client.agents.disable(agent.id);
  await client.agents.enable(agent.id);
  await client.agents.reset(agent.id, { fields: ["instructions"] });
  await client.agents.archive(agent.id); // DELETE /agents/{id}: a soft delete
  await client.agents.unarchive(agent.id); // back, as disabled
  // #endregion
  return { agent, prompt, forced, documents, after: await client.agents.get(agent.id) };
}
