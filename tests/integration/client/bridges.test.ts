// client.bridges against a real platform and a fake bridge server: CRUD (the password never comes
// back), the secret and link code shown once, the connection test, the handles, errors as the client's
// classes, and no user_id sent from a forUser client (bridges are account-scoped).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, ValidationError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startFakeBridgeServer, type FakeBridgeServer } from "../../helpers/bridge-server";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;
let stranger: PlatformClient;
let fake: FakeBridgeServer;

beforeAll(async () => {
  platform = await startPlatform();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: (await platform.signup({ require_end_user_id: false })).key });
  stranger = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: (await platform.signup({ require_end_user_id: false })).key });
  fake = await startFakeBridgeServer("client-bridge-password");
});
afterAll(async () => {
  await fake?.close();
  await platform?.close();
});

describe("client.bridges", () => {
  it("creates, lists, reads, updates, tests and deletes a bridge, from a forUser client too", async () => {
    const scoped = client.forUser("ada");
    const bridge = await scoped.bridges.create({ name: "Desk Mac", server_url: fake.url, password: fake.password, owner_handle: "+15550001111" });
    expect(bridge).toMatchObject({ name: "Desk Mac", has_password: true, status: "active", owner_handle: "+15550001111" });
    expect(JSON.stringify(bridge)).not.toContain(fake.password);
    expect((await client.bridges.listAll()).map((each) => each.id)).toEqual([bridge.id]);
    expect((await client.bridges.get(bridge.id)).name).toBe("Desk Mac");
    expect((await client.bridges.update(bridge.id, { status: "paused" })).status).toBe("paused");

    const tested = await client.bridges.test(bridge.id);
    expect(tested).toMatchObject({ ok: true, status: 200, error: null });

    const rotated = await client.bridges.rotateSecret(bridge.id);
    expect(rotated.inbound_secret).toMatch(/^brsec_/);
    expect(await client.bridges.get(bridge.id)).not.toHaveProperty("inbound_secret");
    const code = await client.bridges.createLinkCode(bridge.id);
    expect(code.code).toHaveLength(8);
    expect((await client.bridges.handles(bridge.id)).data).toEqual([]);

    await expect(client.bridges.create({ server_url: "http://bridge.example.test", password: "p" })).rejects.toBeInstanceOf(ValidationError);
    await expect(stranger.bridges.get(bridge.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.bridges.unlinkHandle(bridge.id, 1)).rejects.toBeInstanceOf(NotFoundError);
    await client.bridges.delete(bridge.id);
    await expect(client.bridges.get(bridge.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
