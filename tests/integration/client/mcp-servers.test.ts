// client.mcpServers against a real platform: registration, approval, update and delete, the
// write-only secret, forUser isolation, and scripts refused on an end-user's client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
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

const weather = {
  name: "Weather",
  url: "https://api.example.com/v1",
  auth_type: "bearer" as const,
  secret: "token-never-returned",
  tool_defs: [{ name: "get_weather", method: "GET" as const, path: "/weather/{city}" }],
};

describe("client.mcpServers", () => {
  it("creates, approves, updates, lists and deletes; the secret stays write-only", async () => {
    const created = await client.mcpServers.create(weather);
    expect(created).toMatchObject({ kind: "rest_api", status: "pending", has_secret: true, user_id: null });
    expect(JSON.stringify(created)).not.toContain("token-never-returned");
    expect((await client.mcpServers.approve(created.id)).status).toBe("approved");
    const moved = await client.mcpServers.update(created.id, { url: "https://api.example.com/v2" });
    expect(moved.status).toBe("pending");
    expect((await client.mcpServers.list()).data.map((server) => server.id)).toContain(created.id);
    await expect(client.mcpServers.startOAuth(created.id)).rejects.toBeInstanceOf(ConflictError);
    await client.mcpServers.delete(created.id);
    await expect(client.mcpServers.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("scopes servers per end-user, and keeps scripts on the account view", async () => {
    const alice = client.forUser("alice");
    const own = await alice.mcpServers.create(weather);
    expect(own.user_id).toBe("alice");
    await expect(client.forUser("bob").mcpServers.get(own.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.mcpServers.get(own.id)).rejects.toBeInstanceOf(NotFoundError);
    const script = { name: "Script", url: "https://api.example.com", kind: "script" as const, tool_defs: ["shout"], script_source: "def shout(text):\n    return text\n" };
    await expect(alice.mcpServers.create(script)).rejects.toBeInstanceOf(ValidationError);
    const accountLevel = await client.mcpServers.create(script);
    expect(accountLevel.script_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
