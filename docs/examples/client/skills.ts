import type { PlatformClient } from "@inlay/core/platform-client";

export default async function skillsExample(platform: PlatformClient, agent: { id: number }) {
  // #region docs
  const client = platform.forUser("user-42");
  const skill = await client.skills.create({ name: "Weekly report", description: "Sums up the week", body: "List the wins, then the risks." });
  // The / picker: platform commands and the active custom skills the agent is offered, sorted by slug.
  const { data } = await client.skills.invokable({ teammate_id: agent.id }); // [{slug, name, description, kind, id}]
  const run = await client.runs.create({ teammate_id: agent.id, message: "/weekly-report for the team", stream: false }); // or skill: "weekly-report"
  await client.skills.update(skill.id, { status: "disabled" });
  await client.skills.delete(skill.id);
  // #endregion
  return { skill, data, run, after: await client.skills.listAll() };
}
