import type { PlatformClient } from "@inlay/core/platform-client";

export default async function agentTemplatesExample(platform: PlatformClient) {
  // #region docs
  const templates = await platform.agentTemplates.listAll();
  const client = platform.forUser("user-42");
  const agent = await client.agents.create({
    from_template: templates[0]!.slug,
    onboarding_answers: { company: "Acme" },
  });
  // #endregion
  return { templates, agent };
}
