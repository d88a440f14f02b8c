// Keys, end-users and agents read through this process's cache (infrastructure/hot-cache.ts): a warm read
// answers as a cold one, and every write through the API is seen by the very next request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlatformRuntime } from "@/server/platform/context";
import { authenticateApiKey } from "@/server/platform/services/account/auth";
import { findAccountAgent } from "@/server/platform/services/agents/agents";
import { PASSWORD, startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let runtime: PlatformRuntime;
beforeAll(async () => {
  platform = await startPlatform();
  runtime = await platform.runtime();
});
afterAll(() => platform.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const ctx = () => ({ prisma: platform.database.prisma, cache: runtime.cache });
const whoAmI = (key: string) => platform.call("/verify/status", { key });
const clearCaches = () => [runtime.cache.keys, runtime.cache.endUsers, runtime.cache.agents].forEach((table) => table.clear());

async function createAgent(account: Account, userId: string, body: Record<string, unknown> = {}) {
  const { status, body: agent } = await platform.call("/agents", {
    key: account.key,
    query: { user_id: userId },
    body: { name: "Cached", instructions: "Answer briefly.", ...body },
  });
  if (status !== 201) throw new Error(`POST /agents: ${status} ${JSON.stringify(agent)}`);
  return agent as { id: number; name: string };
}

async function createKey(account: Account, body: Record<string, unknown> = { name: "ci" }) {
  const { status, body: key } = await platform.call("/keys", { key: account.key, body });
  if (status !== 201) throw new Error(`POST /keys: ${status} ${JSON.stringify(key)}`);
  return key as { id: number; key: string };
}

describe("warm reads", () => {
  it("answer exactly as cold ones, for an agent in an end-user's scope and one in the account's", async () => {
    const account = await platform.signup({ password: PASSWORD, require_end_user_id: false });
    const scoped = await createAgent(account, "warm-1");
    const { body: unscoped } = await platform.call("/agents", { key: account.key, body: { name: "Account-wide" } });
    const reads = () =>
      Promise.all([
        platform.call(`/agents/${scoped.id}`, { key: account.key, query: { user_id: "warm-1" } }),
        platform.call(`/agents/${unscoped.id}`, { key: account.key }),
        platform.call(`/agents/${scoped.id}`, { key: account.key }),
        platform.call(`/agents/${unscoped.id}`, { key: account.key, query: { user_id: "warm-1" } }),
      ]);
    // Each response has its own request id; the rest must match.
    const answers = (responses: Awaited<ReturnType<typeof reads>>) =>
      responses.map(({ status, body }) => [status, status === 200 ? body : { ...body.error, request_id: undefined }]);
    clearCaches();
    const cold = answers(await reads());
    expect(runtime.cache.agents.size).toBeGreaterThan(0);
    const warm = answers(await reads());
    expect(warm).toEqual(cold);
    expect(cold.map(([status]) => status)).toEqual([200, 200, 404, 404]);
  });

  it("serve the agent from memory: a write behind the API's back is not seen, one through it is at once", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const agent = await createAgent(account, "warm-2");
    const read = async () =>
      (await platform.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "warm-2" } })).body.name;
    expect(await read()).toBe("Cached");
    await platform.database.prisma.platformAgent.update({ where: { id: agent.id }, data: { name: "Behind its back" } });
    expect(await read()).toBe("Cached");
    await platform.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", query: { user_id: "warm-2" }, body: { name: "Renamed" } });
    expect(await read()).toBe("Renamed");
  });
});

describe("keys", () => {
  it("a warm named key fails on the request after its revocation", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const key = await createKey(account);
    expect((await whoAmI(key.key)).status).toBe(200);
    await platform.call(`/keys/${key.id}`, { key: account.key, method: "DELETE" });
    expect((await whoAmI(key.key)).status).toBe(401);
  });

  it("a warm named key fails on the request after its rotation; its successor works", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const key = await createKey(account);
    expect((await whoAmI(key.key)).status).toBe(200);
    const { body: rotated } = await platform.call(`/keys/${key.id}/rotate`, { key: account.key, method: "POST" });
    expect((await whoAmI(key.key)).status).toBe(401);
    expect((await whoAmI(rotated.key)).status).toBe(200);
  });

  it("a warm default key fails after POST /keys/rotate, POST /token and DELETE /keys", async () => {
    const account = await platform.signup({ password: PASSWORD });
    expect((await whoAmI(account.key)).status).toBe(200);
    const { body: rotated } = await platform.call("/keys/rotate", { key: account.key, method: "POST" });
    expect((await whoAmI(account.key)).status).toBe(401);
    expect((await whoAmI(rotated.key)).status).toBe(200);
    const { body: token } = await platform.call("/token", { body: { email: account.email, password: PASSWORD } });
    expect((await whoAmI(rotated.key)).status).toBe(401);
    expect((await whoAmI(token.api_key)).status).toBe(200);
    await platform.call("/keys", { key: token.api_key, method: "DELETE" });
    expect((await whoAmI(token.api_key)).status).toBe(401);
  });

  it("a warm key expires on time: the expiry is checked on every request", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const key = await createKey(account, { name: "day", expires_in_days: 1 });
    const now = Date.now();
    expect(await authenticateApiKey(ctx(), key.key, "sk_inlay_", new Date(now))).toMatchObject({ keyId: key.id });
    expect(runtime.cache.keys.size).toBeGreaterThan(0);
    expect(await authenticateApiKey(ctx(), key.key, "sk_inlay_", new Date(now + DAY_MS + 60_000))).toBeNull();
  });

  it("a warm key sees require_end_user_id change at once", async () => {
    const account = await platform.signup({ password: PASSWORD, require_end_user_id: false });
    expect((await platform.call("/agents", { key: account.key })).status).toBe(200);
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { require_end_user_id: true } });
    const strict = await platform.call("/agents", { key: account.key });
    expect(strict.status).toBe(422);
    expect(strict.body.error.error_code).toBe("end_user_id_required");
  });

  it("a warm key fails once its account is deleted", async () => {
    const account = await platform.signup({ password: PASSWORD });
    expect((await whoAmI(account.key)).status).toBe(200);
    expect((await platform.call("/account", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await whoAmI(account.key)).status).toBe(401);
  });
});

describe("agents", () => {
  it("a warm agent's disabling, enabling and archiving show on the next request", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const agent = await createAgent(account, "agent-1");
    const get = () => platform.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "agent-1" } });
    expect((await get()).body.status).toBe("enabled");
    await platform.call(`/agents/${agent.id}/disable`, { key: account.key, method: "POST", query: { user_id: "agent-1" } });
    expect((await get()).body.status).toBe("disabled");
    const run = await platform.call("/runs", { key: account.key, query: { user_id: "agent-1" }, body: { teammate_id: agent.id, message: "hi" } });
    expect(run.status).toBe(409);
    await platform.call(`/agents/${agent.id}/enable`, { key: account.key, method: "POST", query: { user_id: "agent-1" } });
    expect((await get()).body.status).toBe("enabled");
    await platform.call(`/agents/${agent.id}`, { key: account.key, method: "DELETE", query: { user_id: "agent-1" } });
    expect((await get()).status).toBe(404);
  });
});

describe("end-users", () => {
  it("deleting a warm end-user drops its row id and its agents", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const agent = await createAgent(account, "gone-1");
    const get = () => platform.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "gone-1" } });
    expect((await get()).status).toBe(200);
    expect(await findAccountAgent(ctx(), account.id, agent.id)).not.toBeNull();
    const memory = await platform.call("/memories", { key: account.key, query: { user_id: "gone-1" }, body: { content: "likes tea" } });
    expect(memory.status).toBe(201);
    const { body: before } = await platform.call("/users/gone-1", { key: account.key });

    expect((await platform.call("/users/gone-1", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await get()).status).toBe(404);
    expect(await findAccountAgent(ctx(), account.id, agent.id)).toBeNull();
    // The user_id starts afresh: a new profile, with none of the old one's memories.
    const memories = await platform.call("/memories", { key: account.key, query: { user_id: "gone-1" } });
    expect(memories.status).toBe(200);
    expect(memories.body.data).toEqual([]);
    const { body: profile } = await platform.call("/users/gone-1", { key: account.key });
    expect(profile.id).not.toBe(before.id);
  });

  it("a profile update and a recreated profile resolve to the current row", async () => {
    const account = await platform.signup({ password: PASSWORD });
    await platform.call("/memories", { key: account.key, query: { user_id: "edit-1" }, body: { content: "first" } });
    const { body: before } = await platform.call("/users/edit-1", { key: account.key });
    const { body: after } = await platform.call("/users/edit-1", { key: account.key, method: "PATCH", body: { name: "Ada" } });
    expect(after).toMatchObject({ id: before.id, name: "Ada" });
    const listed = await platform.call("/memories", { key: account.key, query: { user_id: "edit-1" } });
    expect(listed.body.data.map((row: { content: string }) => row.content)).toEqual(["first"]);
  });
});
