// client.skills against a real platform: CRUD and the picker through a forUser client, errors as the
// client's classes, and client.agents.systemPrompt.get with a skill.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

describe("client.skills", () => {
  it("creates, lists, reads, updates and deletes an end-user's skills", async () => {
    const ada = client.forUser("ada");
    const agent = await ada.agents.create({ name: "Helper" });
    const skill = await ada.skills.create({ name: "Release notes", description: "Writes release notes", body: "Group the changes by area." });
    expect(skill).toMatchObject({ slug: "release-notes", user_id: "ada", scope: "account", status: "active" });
    const forAgent = await ada.skills.create({ name: "Agent only", description: "d", body: "b", teammate_id: agent.id });
    expect(forAgent.scope).toBe("agent");

    expect((await ada.skills.listAll()).map((row) => row.id)).toEqual([forAgent.id, skill.id]);
    expect((await ada.skills.get(skill.id)).body).toBe("Group the changes by area.");
    const picker = await ada.skills.invokable({ teammate_id: agent.id });
    expect(picker.data.map((entry) => `${entry.kind}:${entry.slug}`)).toEqual([
      "skill:agent-only",
      "command:plan",
      "skill:release-notes",
      "command:review",
      "command:summarize",
    ]);

    const prompt = await ada.agents.systemPrompt.get(agent.id, { skill: "release-notes" });
    expect(prompt.skill).toBe("release-notes");
    expect(prompt.prompt).toContain("## Skill: Release notes\n");

    expect((await ada.skills.update(skill.id, { status: "disabled" })).status).toBe("disabled");
    await expect(ada.agents.systemPrompt.get(agent.id, { skill: "release-notes" })).rejects.toBeInstanceOf(ValidationError);
    await ada.skills.delete(skill.id);
    await expect(ada.skills.get(skill.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("maps a taken slug to ConflictError and another end-user's skill to NotFoundError", async () => {
    const bo = client.forUser("bo");
    const skill = await bo.skills.create({ name: "Triage", description: "d", body: "b" });
    const taken = await bo.skills.create({ name: "TRIAGE", description: "d", body: "b" }).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(ConflictError);
    expect((taken as ConflictError).errorCode).toBe("skill_exists");
    await expect(client.forUser("cy").skills.get(skill.id)).rejects.toBeInstanceOf(NotFoundError);
    // Strict mode (the default for API signups): no account-level listing.
    await expect(client.skills.list()).rejects.toBeInstanceOf(ValidationError);
  });
});
