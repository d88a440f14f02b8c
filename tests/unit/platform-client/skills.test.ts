// client.skills and agents.systemPrompt: each method's method, path and where user_id goes (the body
// of POST /skills, the query string elsewhere), recorded from a stub fetch.
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "@inlay/core/platform-client";

function recording() {
  const calls: { method: string; path: string; query: Record<string, string>; body: unknown }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    calls.push({ method: request.method, path: url.pathname.replace("/api/v2", ""), query: Object.fromEntries(url.searchParams), body: text ? JSON.parse(text) : undefined });
    return request.method === "DELETE" ? new Response(null, { status: 204 }) : Response.json({ data: [], has_more: false, id: 1 });
  };
  const client = createPlatformClient({ baseUrl: "http://platform.test/api/v2", apiKey: "sk_test", fetch, maxRetries: 0 });
  return { calls, client };
}

describe("client.skills", () => {
  it("scopes POST /skills by body and every other call by query", async () => {
    const { calls, client } = recording();
    const scoped = client.forUser("eu_1");
    await scoped.skills.create({ name: "Digest", description: "d", body: "b", teammate_id: 4 });
    await scoped.skills.list({ limit: 5 });
    await scoped.skills.invokable({ teammate_id: 4 });
    await scoped.skills.get(7);
    await scoped.skills.update(7, { status: "disabled" });
    await scoped.skills.delete(7);
    await scoped.agents.systemPrompt.get(4, { skill: "digest" });
    await client.skills.invokable();
    expect(calls).toEqual([
      { method: "POST", path: "/skills", query: {}, body: { name: "Digest", description: "d", body: "b", teammate_id: 4, user_id: "eu_1" } },
      { method: "GET", path: "/skills", query: { limit: "5", user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/skills/invokable", query: { teammate_id: "4", user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/skills/7", query: { user_id: "eu_1" }, body: undefined },
      { method: "PATCH", path: "/skills/7", query: { user_id: "eu_1" }, body: { status: "disabled" } },
      { method: "DELETE", path: "/skills/7", query: { user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/agents/4/system-prompt", query: { skill: "digest", user_id: "eu_1" }, body: undefined },
      { method: "GET", path: "/skills/invokable", query: {}, body: undefined },
    ]);
  });

  it("refuses another end-user's user_id on a scoped client", async () => {
    const { calls, client } = recording();
    await expect(client.forUser("eu_1").skills.create({ name: "n", description: "d", body: "b", user_id: "eu_2" })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toEqual([]);
  });
});
