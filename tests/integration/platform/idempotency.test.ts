import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let agentId: number;
let otherAgentId: number;
let keyCounter = 0;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

/** A verified account creates runs by the one-statement fast path, an unverified one by the admission transaction. */
async function signup(verified: boolean): Promise<Account> {
  const created = await platform.signup();
  if (verified) await platform.database.prisma.platformAccount.update({ where: { id: created.id }, data: { emailVerifiedAt: new Date() } });
  return created;
}

/** A key no other test uses. */
const freshKey = () => `idem-${process.pid}-${++keyCounter}-${Date.now()}`;

const post = (idempotencyKey: string | undefined, body: Record<string, unknown>, key = account.key, userId = "u1") =>
  platform.request(`/runs?user_id=${userId}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    },
    body: JSON.stringify(body),
  });

const runCount = (accountId: number) => platform.database.prisma.platformRun.count({ where: { accountId } });

async function waitForStatus(runId: number, statuses: string[]) {
  return platform.waitForRun(account.key, runId, statuses, { user_id: "u1" });
}

describe.each([
  { path: "fast path, verified account", verified: true },
  { path: "transaction, unverified account", verified: false },
])("POST /runs with Idempotency-Key ($path)", ({ verified }) => {
  beforeAll(async () => {
    account = await signup(verified);
    other = await signup(verified);
    agentId = (await platform.call("/agents", { key: account.key, body: { name: "Runner", user_id: "u1" } })).body.id;
    otherAgentId = (await platform.call("/agents", { key: other.key, body: { name: "Runner", user_id: "u1" } })).body.id;
  });

  it("replays the same request as the original run's current state, with Idempotent-Replay: true", async () => {
    const key = freshKey();
    const body = { teammate_id: agentId, message: "once only", stream: false, permission_mode: "autonomous" };
    const first = await post(key, body);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replay")).toBeNull();
    const run = (await first.json()) as { id: number; status: string };
    expect(run.status).toBe("running");
    await waitForStatus(run.id, ["completed"]);
    const before = await runCount(account.id);

    // The same request with its JSON keys in another order is still the same request.
    const reordered = { permission_mode: "autonomous", stream: false, message: "once only", teammate_id: agentId };
    const replay = await post(key, reordered);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    const replayed = (await replay.json()) as Record<string, unknown>;
    expect(replayed).toMatchObject({ id: run.id, status: "completed", output: "Echo: once only", user_id: "u1" });
    // The GET /runs/{run_id} shape, field for field. updated_at aside: the executor still touches the
    // row (releasing its lease) just after the run completes.
    const fetched = await platform.call(`/runs/${run.id}`, { key: account.key, query: { user_id: "u1" } });
    const withoutUpdatedAt = ({ updated_at: _updatedAt, ...rest }: Record<string, unknown>) => rest;
    expect(withoutUpdatedAt(replayed)).toEqual(withoutUpdatedAt(fetched.body));
    expect(Object.keys(replayed).sort()).toEqual(Object.keys(fetched.body).sort());
    expect(await runCount(account.id)).toBe(before);
  });

  it("answers a replay of a streaming call as JSON naming the streamed run", async () => {
    const key = freshKey();
    const body = { teammate_id: agentId, message: "stream me", permission_mode: "autonomous" };
    const first = await post(key, body);
    expect(first.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(first, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: stream me");
    const stored = await platform.database.prisma.platformIdempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: account.id, key } },
    });
    expect(stored.runId).not.toBeNull();
    await waitForStatus(stored.runId!, ["completed"]);

    const replay = await post(key, body);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("content-type")).toMatch(/application\/json/);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(await replay.json()).toMatchObject({ id: stored.runId, status: "completed", output: "Echo: stream me" });
  });

  it("lets any key of the same account replay", async () => {
    const second = await platform.call("/keys", { key: account.key, body: { name: "second" } });
    expect(second.status).toBe(201);
    const key = freshKey();
    const body = { teammate_id: agentId, message: "any key", stream: false };
    const first = (await (await post(key, body)).json()) as { id: number };
    const replay = await post(key, body, second.body.key);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(((await replay.json()) as { id: number }).id).toBe(first.id);
  });

  it("answers 409 idempotency_key_reuse for the same key with a different body or query", async () => {
    const key = freshKey();
    const body = { teammate_id: agentId, message: "original", stream: false };
    expect((await post(key, body)).status).toBe(200);
    const before = await runCount(account.id);

    for (const response of [
      await post(key, { ...body, message: "something else" }),
      await post(key, body, account.key, "u2"),
    ]) {
      expect(response.status).toBe(409);
      const { error } = (await response.json()) as { error: Record<string, any> };
      expect(error.type).toBe("conflict_error");
      expect(error.error_code).toBe("idempotency_key_reuse");
      expect(error.details.error_code).toBe("idempotency_key_reuse");
    }
    expect(await runCount(account.id)).toBe(before);
  });

  it("does not bind the key on a 422 or a 400: the key stays usable", async () => {
    const key = freshKey();
    const invalid = await post(key, { teammate_id: agentId, message: "x", skill: "nope", stream: false });
    expect(invalid.status).toBe(422);
    const refused = await post(key, { teammate_id: agentId, message: "x", permission_mode: "approval", human_in_the_loop: false });
    expect(refused.status).toBe(400);
    expect(await platform.database.prisma.platformIdempotencyKey.count({ where: { accountId: account.id, key } })).toBe(0);

    // A different request with the same key now creates its run: no 409, no replay.
    const valid = await post(key, { teammate_id: agentId, message: "fixed", stream: false });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replay")).toBeNull();
    const run = (await valid.json()) as { id: number };
    const stored = await platform.database.prisma.platformIdempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: account.id, key } },
    });
    expect(stored.runId).toBe(run.id);
  });

  it("answers a failing request by its key first: a key another request holds is 409 idempotency_key_reuse", async () => {
    const key = freshKey();
    expect((await post(key, { teammate_id: agentId, message: "first", stream: false })).status).toBe(200);
    for (const failing of [
      { teammate_id: agentId, message: "x", skill: "nope", stream: false },
      { teammate_id: 999_999, message: "x", stream: false },
    ]) {
      const response = await post(key, failing);
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: { error_code: string } }).error.error_code).toBe("idempotency_key_reuse");
    }
  });

  it("refuses a key longer than 255 characters with 422 naming the header, and claims nothing", async () => {
    const key = "k".repeat(256);
    const response = await post(key, { teammate_id: agentId, message: "x", stream: false });
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as { error: Record<string, any> };
    expect(error.type).toBe("validation_error");
    expect(error.message).toMatch(/Idempotency-Key/);
    expect(await platform.database.prisma.platformIdempotencyKey.count({ where: { key } })).toBe(0);
    // 255 characters is fine.
    expect((await post("k".repeat(255), { teammate_id: agentId, message: "x", stream: false })).status).toBe(200);
  });

  it("keeps the same key of two accounts independent", async () => {
    const key = freshKey();
    const mine = await post(key, { teammate_id: agentId, message: "same", stream: false });
    const theirs = await post(key, { teammate_id: otherAgentId, message: "same", stream: false }, other.key);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replay")).toBeNull();
    const [a, b] = [(await mine.json()) as { id: number }, (await theirs.json()) as { id: number }];
    expect(a.id).not.toBe(b.id);
    // Each account's replay names its own run.
    const replay = await post(key, { teammate_id: otherAgentId, message: "same", stream: false }, other.key);
    expect(((await replay.json()) as { id: number }).id).toBe(b.id);
  });

  it("frees a key after it expires: the same request then creates a new run", async () => {
    const key = freshKey();
    const body = { teammate_id: agentId, message: "expiring", stream: false };
    const first = (await (await post(key, body)).json()) as { id: number };
    const { count } = await platform.database.prisma.platformIdempotencyKey.updateMany({
      where: { accountId: account.id, key },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(count).toBe(1);

    const again = await post(key, body);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replay")).toBeNull();
    const second = (await again.json()) as { id: number };
    expect(second.id).not.toBe(first.id);
    // The key now names the new run, for another 24 hours.
    const stored = await platform.database.prisma.platformIdempotencyKey.findUniqueOrThrow({
      where: { accountId_key: { accountId: account.id, key } },
    });
    expect(stored.runId).toBe(second.id);
    expect(stored.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 60 * 60 * 1000);
    const replay = await post(key, body);
    expect(((await replay.json()) as { id: number }).id).toBe(second.id);
  });

  it("creates exactly one run for 50 concurrent requests with one key, and every answer names it", async () => {
    const key = freshKey();
    const body = { teammate_id: agentId, message: "racing", stream: false, permission_mode: "autonomous" };
    const before = await runCount(account.id);
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(key, body)));
    const answers = await Promise.all(
      responses.map(async (response) => ({
        status: response.status,
        replay: response.headers.get("idempotent-replay"),
        id: ((await response.json()) as { id: number }).id,
      })),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(await runCount(account.id)).toBe(before + 1);
    const run = await platform.database.prisma.platformRun.findFirstOrThrow({
      where: { accountId: account.id },
      orderBy: { id: "desc" },
    });
    expect(new Set(answers.map(({ id }) => id))).toEqual(new Set([run.id]));
    expect(answers.filter(({ replay }) => replay === "true")).toHaveLength(49);
  });
});
