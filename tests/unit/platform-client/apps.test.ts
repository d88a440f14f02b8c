// client.apps: each method's method, path and where user_id goes (query for reads and deletes, body
// for the connect POSTs, none on the spec's PATCH), recorded from a stub fetch.
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "@inlay/core/platform-client";

function recording() {
  const calls: { method: string; path: string; query: Record<string, string>; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    calls.push({
      method: request.method,
      path: url.pathname.replace("/api/v2", ""),
      query: Object.fromEntries(url.searchParams),
      body: text ? JSON.parse(text) : undefined,
    });
    const answer = url.pathname.endsWith("/connect")
      ? { authorization_url: "https://oauth.test/a", connection_id: "c1" }
      : request.method === "DELETE"
        ? null
        : { data: [], has_more: false, status: "active", app: "codehost" };
    return answer === null ? new Response(null, { status: 204 }) : Response.json(answer);
  };
  const client = createPlatformClient({ baseUrl: "http://platform.test/api/v2", apiKey: "sk_test", fetch, maxRetries: 0 }).forUser("eu_1");
  return { calls, client };
}

describe("client.apps", () => {
  it("scopes reads and deletes by query, connect POSTs by body", async () => {
    const { calls, client } = recording();
    await client.apps.list();
    await client.apps.connections();
    await client.apps.appConnections("codehost");
    await client.apps.tools("codehost");
    await client.apps.triggers("codehost");
    expect(await client.apps.connect("codehost", { redirect_uri: "https://app.test/cb/x" })).toEqual({
      authorization_url: "https://oauth.test/a",
      connection_id: "c1",
    });
    await client.apps.complete("codehost", { connection_id: "c1" });
    await client.apps.connectApiKey("tracker", { api_key: "k" });
    await client.apps.updateConnection("c/1", { label: "Work" });
    await client.apps.deleteConnection("c1");
    await client.apps.disconnectApp("codehost");
    expect(calls).toEqual([
      { method: "GET", path: "/apps", query: { user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/apps/connections", query: { user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/apps/codehost/connections", query: { user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/apps/codehost/tools", query: {}, body: undefined },
      { method: "GET", path: "/apps/codehost/triggers", query: {}, body: undefined },
      { method: "POST", path: "/apps/codehost/connect", query: {}, body: { redirect_uri: "https://app.test/cb/x", user_id: "eu_1" } },
      { method: "POST", path: "/apps/codehost/connect/complete", query: {}, body: { connection_id: "c1", user_id: "eu_1" } },
      { method: "POST", path: "/apps/tracker/connect/api-key", query: {}, body: { api_key: "k", user_id: "eu_1" } },
      { method: "PATCH", path: "/apps/connections/c%2F1", query: { user_id: "eu_1" }, body: { label: "Work" } },
      { method: "DELETE", path: "/apps/connections/c1", query: { user_id: "eu_1" }, body: undefined },
      { method: "DELETE", path: "/apps/codehost/connections", query: { user_id: "eu_1" }, body: undefined },
    ]);
  });

  it("refuses another end-user on a scoped client", async () => {
    const { client } = recording();
    await expect(client.apps.connect("codehost", { redirect_uri: "https://app.test/cb", user_id: "eu_2" })).rejects.toThrow(TypeError);
  });
});
