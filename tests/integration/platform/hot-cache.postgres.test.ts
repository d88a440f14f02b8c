// Two instances of one deployment on one PostgreSQL database, each with its own hot-row cache
// (infrastructure/hot-cache.ts): a write through one is seen by the other within NOTIFY's delivery time.
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preferredDefaultModel } from "@/server/platform/services/models/model-connections";
import { PASSWORD, startPlatform, untilHeard, type Account, type PlatformHarness } from "../../helpers/platform";

let a: PlatformHarness;
let b: PlatformHarness;
beforeAll(async () => {
  // OpenAI's models in the catalogue: a model connection's default model is one of them.
  a = await startPlatform({ models: { openaiConfigured: true } });
  b = await startPlatform({ database: a.database, models: { openaiConfigured: true } });
  // Both LISTEN before any test relies on hearing the other.
  await untilHeard(a, b);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** NOTIFY arrives in milliseconds; a second is the most this waits for `done`. */
async function within<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 1_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await delay(10);
    value = await read();
  }
  return value;
}

const whoAmI = (instance: PlatformHarness, key: string) => instance.call("/verify/status", { key });

async function createAgent(account: Account, userId: string) {
  const { status, body } = await a.call("/agents", {
    key: account.key,
    query: { user_id: userId },
    body: { name: "Shared", instructions: "Answer briefly." },
  });
  if (status !== 201) throw new Error(`POST /agents: ${status} ${JSON.stringify(body)}`);
  return body as { id: number };
}

describe("keys across instances", () => {
  it("a key revoked through A is refused by B, whose cache held it", async () => {
    const account = await a.signup({ password: PASSWORD });
    const { body: key } = await a.call("/keys", { key: account.key, body: { name: "shared" } });
    expect((await whoAmI(a, key.key)).status).toBe(200);
    expect((await whoAmI(b, key.key)).status).toBe(200);
    expect((await b.runtime()).cache.keys.size).toBeGreaterThan(0);

    await a.call(`/keys/${key.id}`, { key: account.key, method: "DELETE" });
    expect((await whoAmI(a, key.key)).status).toBe(401);
    expect((await within(() => whoAmI(b, key.key), (r) => r.status === 401)).status).toBe(401);
    expect((await whoAmI(b, account.key)).status).toBe(200);
  });

  it("a default key rotated through A is refused by B", async () => {
    const account = await a.signup({ password: PASSWORD });
    expect((await whoAmI(b, account.key)).status).toBe(200);
    const { body: rotated } = await a.call("/keys/rotate", { key: account.key, method: "POST" });
    expect((await within(() => whoAmI(b, account.key), (r) => r.status === 401)).status).toBe(401);
    expect((await whoAmI(b, rotated.key)).status).toBe(200);
  });
});

describe("agents and end-users across instances", () => {
  it("an agent updated, then archived, through A reads so on B", async () => {
    const account = await a.signup({ password: PASSWORD });
    const agent = await createAgent(account, "shared-1");
    const getOnB = () => b.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "shared-1" } });
    expect((await getOnB()).body.name).toBe("Shared");

    await a.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", query: { user_id: "shared-1" }, body: { name: "Renamed" } });
    expect((await within(getOnB, (r) => r.body.name === "Renamed")).body.name).toBe("Renamed");

    await a.call(`/agents/${agent.id}`, { key: account.key, method: "DELETE", query: { user_id: "shared-1" } });
    expect((await within(getOnB, (r) => r.status === 404)).status).toBe(404);
  });

  it("an end-user deleted through A takes its agents with it on B", async () => {
    const account = await a.signup({ password: PASSWORD });
    const agent = await createAgent(account, "shared-2");
    const getOnB = () => b.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "shared-2" } });
    expect((await getOnB()).status).toBe(200);

    expect((await a.call("/users/shared-2", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await within(getOnB, (r) => r.status === 404)).status).toBe(404);
    // B's next use of the user_id makes a new profile instead of writing to the deleted one's row id.
    const memory = await b.call("/memories", { key: account.key, query: { user_id: "shared-2" }, body: { content: "fresh" } });
    expect(memory.status).toBe(201);
  });
});

describe("model connections across instances", () => {
  it("the preferred default changed through A is what B's next run start takes", async () => {
    const account = await a.signup({ password: PASSWORD });
    const onB = async () => preferredDefaultModel({ prisma: b.database.prisma, cache: (await b.runtime()).cache, config: b.config }, account.id);
    const call = (path: string, method: string, body?: unknown) => a.call(`/model-connections${path}`, { key: account.key, method, body });
    expect((await call("/openai", "PUT", { api_key: "sk-shared-openai-key-0123456789" })).status).toBe(200);
    expect((await call("/openai/default-model", "PATCH", { model: "gpt-4.1" })).status).toBe(200);
    expect(await onB()).toBeNull();

    expect((await call("/openai/apply-default", "POST")).status).toBe(200);
    expect(await within(onB, (model) => model !== null)).toBe("openai/gpt-4.1");
    expect((await call("/openai/default-model", "PATCH", { model: "gpt-4.1-mini" })).status).toBe(200);
    expect(await within(onB, (model) => model !== "openai/gpt-4.1")).toBe("openai/gpt-4.1-mini");
    expect((await call("/openai", "DELETE")).status).toBe(204);
    expect(await within(onB, (model) => model === null)).toBeNull();
  });
});

// Sessions (services/account/sessions.ts) are cached like keys: revoking sessions, changing the password or
// removing a team member through A is refused by B.
async function signIn(account: Account, orgId?: number) {
  const { status, body } = await a.call("/account/sessions", {
    body: { email: account.email, password: PASSWORD, org_id: orgId },
  });
  if (status !== 201) throw new Error(`POST /account/sessions: ${status} ${JSON.stringify(body)}`);
  return body as { access_token: string };
}

describe("sessions across instances", () => {
  it("sessions revoked through A are refused by B, whose cache held them", async () => {
    const account = await a.signup({ password: PASSWORD });
    const [one, two] = [await signIn(account), await signIn(account)];
    expect((await whoAmI(b, two.access_token)).status).toBe(200);
    expect((await b.runtime()).cache.sessions.size).toBeGreaterThan(0);

    expect((await a.call("/account/sessions/revoke", { key: one.access_token, method: "POST" })).status).toBe(200);
    expect((await within(() => whoAmI(b, two.access_token), (r) => r.status === 401)).status).toBe(401);
    expect((await whoAmI(b, account.key)).status).toBe(200);
  });

  it("a password changed through A ends the sessions B held", async () => {
    const account = await a.signup({ password: PASSWORD });
    const session = await signIn(account);
    expect((await whoAmI(b, session.access_token)).status).toBe(200);
    const changed = await a.call("/account/password", {
      key: account.key,
      body: { current_password: PASSWORD, new_password: "battery-staple" },
    });
    expect(changed.status).toBe(200);
    expect((await within(() => whoAmI(b, session.access_token), (r) => r.status === 401)).status).toBe(401);
    expect((await whoAmI(b, changed.body.access_token)).status).toBe(200);
  });

  it("a member removed through A loses the team session B held", async () => {
    const owner = await a.signup({ password: PASSWORD });
    const member = await a.signup({ password: PASSWORD });
    await a.call(`/teams/${owner.id}/invites`, { key: owner.key, body: { email: member.email } });
    const token = /"token": "([A-Za-z0-9_-]+)"/.exec(a.lastMail(member.email, "team_invite").text)?.[1];
    const joined = await a.call("/teams/invites/accept", { key: member.key, body: { token } });
    expect(joined.status).toBe(200);
    const memberId = joined.body.members.find((m: { account_id: number }) => m.account_id === member.id).id;

    const session = await signIn(member, owner.id);
    expect((await whoAmI(b, session.access_token)).status).toBe(200);
    expect((await a.call(`/teams/${owner.id}/members/${memberId}`, { key: owner.key, method: "DELETE" })).status).toBe(204);
    expect((await within(() => whoAmI(b, session.access_token), (r) => r.status === 401)).status).toBe(401);
  });
});
