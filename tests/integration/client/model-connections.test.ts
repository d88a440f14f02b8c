// client.modelConnections against a real platform: every method, secrets never in what comes back,
// and the platform's refusals as the client's error classes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform({
    models: {
      openaiConfigured: true,
      anthropicConfigured: true,
      connections: {
        provA: {
          // Starting an authorization calls nothing: these only shape the authorization URL.
          oauth: {
            clientId: "client",
            authorizationUrl: "http://127.0.0.1:9/authorize",
            tokenUrl: "http://127.0.0.1:9/token",
            redirectUri: "http://127.0.0.1:9/code",
            scopes: ["models"],
          },
        },
      },
    },
  });
  const account = await platform.signup();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

describe("client.modelConnections", () => {
  it("connects, sets defaults and disconnects", async () => {
    const openai = await client.modelConnections.connectApiKey("openai", { api_key: "sk-client-secret-key" });
    expect(openai).toMatchObject({ provider: "openai", connected: true });
    expect(JSON.stringify(openai)).not.toContain("sk-client-secret-key");

    const provA = await client.modelConnections.paste({ access_token: "pasted-client-token" });
    expect(provA.accounts[0]!.method).toBe("paste");

    expect((await client.modelConnections.setDefaultModel("openai", "gpt-4.1-mini")).default_model).toBe("openai/gpt-4.1-mini");
    await expect(client.modelConnections.setDefaultModel("openai", "sonnet")).rejects.toBeInstanceOf(ValidationError);
    expect((await client.modelConnections.applyDefault("openai")).preferred_default).toBe(true);
    expect((await client.modelConnections.list()).preferred_default).toBe("openai");
    await client.modelConnections.clearPreferredDefault();
    expect((await client.modelConnections.list()).preferred_default).toBeNull();

    const second = await client.modelConnections.connectApiKey("openai", { api_key: "another", label: "second" });
    await client.modelConnections.disconnectAccount("openai", second.accounts[1]!.id);
    await expect(client.modelConnections.disconnectAccount("openai", second.accounts[1]!.id)).rejects.toBeInstanceOf(NotFoundError);
    await client.modelConnections.disconnect("openai");
    await expect(client.modelConnections.disconnect("openai")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("starts, polls and cancels an authorization", async () => {
    const started = await client.modelConnections.authorizations.start("provA");
    expect(started.status).toBe("pending");
    expect(started.authorization_url).toContain("code_challenge=");
    expect((await client.modelConnections.authorizations.get("provA", started.state)).status).toBe("pending");
    await client.modelConnections.authorizations.cancel("provA", started.state);
    expect((await client.modelConnections.authorizations.get("provA", started.state)).status).toBe("cancelled");
    await expect(client.modelConnections.authorizations.complete("provA", started.state, { code: "c" })).rejects.toBeInstanceOf(ConflictError);
  });
});
