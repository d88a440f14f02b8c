import type { PlatformClient } from "@inlay/core/platform-client";

export default async function modelConnectionsExample(client: PlatformClient, gatewayUrl: string) {
  // #region docs
  // Account-level: the account's runs on Anthropic models now call Anthropic with this key and settle
  // on the own_sub meter; the balance pays nothing for them.
  const anthropic = await client.modelConnections.connectApiKey("anthropic", { api_key: "sk-ant-…", base_url: gatewayUrl });
  // provA: paste the tokens the provider gave you (or run client.modelConnections.authorizations.start).
  await client.modelConnections.paste({ access_token: "…", refresh_token: "…", expires_at_ms: Date.now() + 3_600_000 });
  await client.modelConnections.applyDefault("anthropic"); // runs without a model use its default model
  const { data, preferred_default } = await client.modelConnections.list(); // every provider, no secrets
  await client.modelConnections.disconnect("provA");
  // #endregion
  return { anthropic, data, preferred_default };
}
