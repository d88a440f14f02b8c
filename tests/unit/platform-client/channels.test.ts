// client.channels: account-scoped list and identity PUT (never a user_id, even on an end-user's client),
// install links scoped by query; recorded from a stub fetch.
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "@inlay/core/platform-client";

function recording() {
  const calls: { method: string; path: string; query: Record<string, string>; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    calls.push({ method: request.method, path: url.pathname.replace("/api/v2", ""), query: Object.fromEntries(url.searchParams), body: text ? JSON.parse(text) : undefined });
    return Response.json(url.pathname.endsWith("/install-links") ? { chat: { install_url: "https://oauth.test/a" }, codehost: null } : { data: [], has_more: false });
  };
  const base = createPlatformClient({ baseUrl: "http://platform.test/api/v2", apiKey: "sk_test", fetch, maxRetries: 0 });
  return { calls, base, scoped: base.forUser("eu_1") };
}

describe("client.channels", () => {
  it("sends the list and the identity without user_id, and the install links with the client's scope", async () => {
    const { calls, base, scoped } = recording();
    await scoped.channels.list();
    await scoped.channels.putIdentity({ channel: "chat", client_id: "c", client_secret: "s", signing_secret: "g" });
    expect(await scoped.channels.installLinks({ redirect_uri: "https://app.test/done" })).toEqual({ chat: { install_url: "https://oauth.test/a" }, codehost: null });
    await base.channels.installLinks();
    expect(calls).toEqual([
      { method: "GET", path: "/channels", query: {}, body: undefined },
      { method: "PUT", path: "/channels/identities", query: {}, body: { channel: "chat", client_id: "c", client_secret: "s", signing_secret: "g" } },
      { method: "GET", path: "/channels/install-links", query: { redirect_uri: "https://app.test/done", user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/channels/install-links", query: {}, body: undefined },
    ]);
  });
});
