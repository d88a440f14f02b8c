// Client methods added so the client covers /openapi.json (coverage.test.ts), against a real platform:
// client.teammates, a task's lessons and its inbound webhook, each in an end-user's scope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup({ require_end_user_id: false });
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(async () => {
  await platform.close();
});

describe("client.teammates", () => {
  it("creates, lists, gets, updates and archives a teammate in a user's scope", async () => {
    const alice = client.forUser("eu_mates_alice");
    const mate = await alice.teammates.create({ name: "Helper", instructions: "Be brief." });
    expect(mate).toMatchObject({ name: "Helper", user_id: "eu_mates_alice" });
    expect((await alice.teammates.listAll()).map((each) => each.id)).toContain(mate.id);
    expect((await alice.teammates.get(mate.id)).instructions).toBe("Be brief.");
    expect((await alice.teammates.update(mate.id, { name: "Helper 2" })).name).toBe("Helper 2");
    // The same resource as /agents.
    expect((await alice.agents.get(mate.id)).name).toBe("Helper 2");

    await expect(client.forUser("eu_mates_bob").teammates.get(mate.id)).rejects.toBeInstanceOf(NotFoundError);

    await alice.teammates.archive(mate.id);
    await expect(alice.teammates.get(mate.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("client.tasks lessons and webhook", () => {
  it("reads and clears a task's lessons, and enables, pauses and deletes its webhook", async () => {
    const alice = client.forUser("eu_mates_tasks");
    const agent = await alice.agents.create({ name: "Worker" });
    const task = await alice.tasks.create({ teammate_id: agent.id, instructions: "Tidy up" });

    expect(await alice.tasks.lessons(task.id)).toMatchObject({ capacity_used: 0, data: [] });
    expect((await alice.tasks.clearLessons(task.id)).data).toEqual([]);
    await expect(alice.tasks.deleteLesson(task.id, 999_999)).rejects.toBeInstanceOf(NotFoundError);

    const hook = await alice.tasks.enableWebhook(task.id);
    expect(hook).toMatchObject({ task_id: task.id, enabled: true });
    expect(hook.webhook_url).toMatch(/^https?:\/\//);
    expect(await alice.tasks.updateWebhook(task.id, { enabled: false })).toMatchObject({ enabled: false });
    const paused = await fetch(hook.webhook_url!, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(paused.status).toBe(409);
    await alice.tasks.deleteWebhook(task.id);
    await expect(alice.tasks.updateWebhook(task.id, { enabled: true })).rejects.toBeInstanceOf(NotFoundError);
  });
});
