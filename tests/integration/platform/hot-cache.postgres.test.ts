// Two instances of one deployment on one PostgreSQL database, each with its own hot-row cache
// (runtime/hot-cache.ts): a write through one is seen by the other within NOTIFY's delivery time.
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let a: PlatformHarness;
let b: PlatformHarness;
beforeAll(async () => {
  a = await startPlatform();
  b = await startPlatform({ database: a.database });
  // Both LISTEN before any test relies on hearing the other.
  const [fromA, toB] = [(await a.runtime()).signals, (await b.runtime()).signals];
  let heard = false;
  const stop = toB.subscribe("test:probe", () => (heard = true));
  for (let tries = 0; !heard && tries < 100; tries++) {
    fromA.publish("test:probe");
    await delay(50);
  }
  stop();
  if (!heard) throw new Error("instance B never heard instance A's signals");
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
    const account = await a.signup();
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
    const account = await a.signup();
    expect((await whoAmI(b, account.key)).status).toBe(200);
    const { body: rotated } = await a.call("/keys/rotate", { key: account.key, method: "POST" });
    expect((await within(() => whoAmI(b, account.key), (r) => r.status === 401)).status).toBe(401);
    expect((await whoAmI(b, rotated.key)).status).toBe(200);
  });
});

describe("agents and end-users across instances", () => {
  it("an agent updated, then archived, through A reads so on B", async () => {
    const account = await a.signup();
    const agent = await createAgent(account, "shared-1");
    const getOnB = () => b.call(`/agents/${agent.id}`, { key: account.key, query: { user_id: "shared-1" } });
    expect((await getOnB()).body.name).toBe("Shared");

    await a.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", query: { user_id: "shared-1" }, body: { name: "Renamed" } });
    expect((await within(getOnB, (r) => r.body.name === "Renamed")).body.name).toBe("Renamed");

    await a.call(`/agents/${agent.id}`, { key: account.key, method: "DELETE", query: { user_id: "shared-1" } });
    expect((await within(getOnB, (r) => r.status === 404)).status).toBe(404);
  });

  it("an end-user deleted through A takes its agents with it on B", async () => {
    const account = await a.signup();
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
