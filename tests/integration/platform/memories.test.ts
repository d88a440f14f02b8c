// End-user memories: /memories and /memories/{memory_id}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let strict: Account;
let lax: Account;
let other: Account;
beforeAll(async () => {
  platform = await startPlatform();
  strict = await platform.signup();
  lax = await platform.signup({ require_end_user_id: false });
  other = await platform.signup();
});
afterAll(() => platform.close());

let counter = 0;
const freshUserId = () => `memory-user-${++counter}`;

async function saveMemory(key: string, userId: string, content: string) {
  const response = await platform.call("/memories", { key, body: { user_id: userId, content } });
  if (response.status !== 201) throw new Error(`POST /memories: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; user_id: string; content: string };
}

const contents = (body: { data: { content: string }[] }) => body.data.map((memory) => memory.content);

describe("POST /memories", () => {
  it("saves a memory for the end-user named in the body and answers 201", async () => {
    const userId = freshUserId();
    const { status, body } = await platform.call("/memories", {
      key: strict.key,
      body: { user_id: userId, content: "  Prefers replies in French  " },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      user_id: userId,
      content: "Prefers replies in French",
      source: "api",
      created_at: expect.stringMatching(/Z$/),
    });
    const listed = await platform.call("/memories", { key: strict.key, query: { user_id: userId } });
    expect(listed.body.data).toEqual([body]);
  });

  it("takes user_id from the query string too, and refuses two different ones", async () => {
    const userId = freshUserId();
    const fromQuery = await platform.call("/memories", {
      key: strict.key,
      query: { user_id: userId },
      body: { content: "from the query" },
    });
    expect(fromQuery.status).toBe(201);
    expect(fromQuery.body.user_id).toBe(userId);

    const both = await platform.call("/memories", {
      key: strict.key,
      query: { user_id: userId },
      body: { user_id: userId, content: "same in both" },
    });
    expect(both.status).toBe(201);

    const clash = await platform.call("/memories", {
      key: strict.key,
      query: { user_id: userId },
      body: { user_id: freshUserId(), content: "clash" },
    });
    expect(clash.status).toBe(422);
    expect(clash.body.error.message).toMatch(/^user_id: /);
  });

  it("creates the end-user's profile on first use", async () => {
    const userId = freshUserId();
    expect((await platform.call(`/users/${userId}`, { key: strict.key })).status).toBe(404);
    await saveMemory(strict.key, userId, "first");
    const profile = await platform.call(`/users/${userId}`, { key: strict.key });
    expect(profile.status).toBe(200);
    expect(profile.body.user_id).toBe(userId);
  });

  it("requires user_id in strict mode and when strict mode is off, with 422 naming it", async () => {
    for (const account of [strict, lax]) {
      const { status, body } = await platform.call("/memories", { key: account.key, body: { content: "orphan" } });
      expect(status).toBe(422);
      expect(body.error).toMatchObject({ type: "validation_error", error_code: "end_user_id_required" });
      expect(body.error.message).toMatch(/^user_id: /);
    }
    // Nothing reached the account-level scope.
    expect(await platform.database.prisma.platformMemory.count({ where: { endUserId: null } })).toBe(0);
  });

  it("requires content: present, not blank, at most 10,000 characters", async () => {
    const userId = freshUserId();
    for (const body of [{ user_id: userId }, { user_id: userId, content: " \n " }, { user_id: userId, content: 42 }]) {
      const response = await platform.call("/memories", { key: strict.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["content"]);
    }
    const atLimit = await platform.call("/memories", {
      key: strict.key,
      body: { user_id: userId, content: "x".repeat(10_000) },
    });
    expect(atLimit.status).toBe(201);
    const tooLong = await platform.call("/memories", {
      key: strict.key,
      body: { user_id: userId, content: "x".repeat(10_001) },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error.message).toBe("content: must be at most 10000 characters");
  });

  it("needs a valid key", async () => {
    expect((await platform.call("/memories", { body: { user_id: "u", content: "c" } })).status).toBe(401);
    const invalid = await platform.call("/memories", { key: "sk_inlay_wrong", body: { user_id: "u", content: "c" } });
    expect(invalid.status).toBe(401);
    expect(invalid.body.error.type).toBe("authentication_error");
  });
});

describe("GET /memories", () => {
  it("pages through one end-user's memories newest first", async () => {
    const userId = freshUserId();
    for (const content of ["m1", "m2", "m3", "m4", "m5"]) await saveMemory(strict.key, userId, content);
    await saveMemory(strict.key, freshUserId(), "someone else's");

    const first = await platform.call("/memories", { key: strict.key, query: { user_id: userId, limit: 2 } });
    expect(first.status).toBe(200);
    expect(contents(first.body)).toEqual(["m5", "m4"]);
    expect(first.body.has_more).toBe(true);

    const second = await platform.call("/memories", {
      key: strict.key,
      query: { user_id: userId, limit: 2, starting_after: first.body.data[1].id },
    });
    expect(contents(second.body)).toEqual(["m3", "m2"]);
    expect(second.body.has_more).toBe(true);

    const last = await platform.call("/memories", {
      key: strict.key,
      query: { user_id: userId, limit: 2, starting_after: second.body.data[1].id },
    });
    expect(contents(last.body)).toEqual(["m1"]);
    expect(last.body.has_more).toBe(false);

    const all = await platform.call("/memories", { key: strict.key, query: { user_id: userId } });
    expect(contents(all.body)).toEqual(["m5", "m4", "m3", "m2", "m1"]);
    expect(all.body.has_more).toBe(false);
  });

  it("requires user_id whatever strict mode says", async () => {
    for (const account of [strict, lax]) {
      const { status, body } = await platform.call("/memories", { key: account.key });
      expect(status).toBe(422);
      expect(body.error.error_code).toBe("end_user_id_required");
      expect(body.error.message).toMatch(/^user_id: /);
    }
    const strictMessage = (await platform.call("/memories", { key: strict.key })).body.error.message;
    expect(strictMessage).toContain("require_end_user_id");
  });

  it("does not show another account's memories for the same user_id", async () => {
    const userId = freshUserId();
    await saveMemory(other.key, userId, "other account's secret");
    const { status, body } = await platform.call("/memories", { key: strict.key, query: { user_id: userId } });
    expect(status).toBe(200);
    expect(body).toEqual({ data: [], has_more: false });
  });

  it("does not list account-level memories", async () => {
    const userId = freshUserId();
    await saveMemory(lax.key, userId, "scoped");
    await platform.database.prisma.platformMemory.create({
      data: { accountId: lax.id, endUserId: null, content: "account-level", source: "agent" },
    });
    const { body } = await platform.call("/memories", { key: lax.key, query: { user_id: userId } });
    expect(contents(body)).toEqual(["scoped"]);
  });

  it("validates limit and starting_after, refuses unknown parameters and needs a key", async () => {
    for (const query of [{ limit: 0 }, { limit: 101 }, { starting_after: "abc" }, { starting_after: -1 }]) {
      const { status, body } = await platform.call("/memories", { key: strict.key, query: { user_id: "u", ...query } });
      expect(status, JSON.stringify(query)).toBe(422);
      expect(body.error.details.fields[0].field).toBe(Object.keys(query)[0]);
    }
    const unknown = await platform.call("/memories", { key: strict.key, query: { user_id: "u", order: "asc" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.error_code).toBe("unknown_query_parameter");
    expect((await platform.call("/memories", { query: { user_id: "u" } })).status).toBe(401);
  });
});

describe("DELETE /memories/{memory_id}", () => {
  const remaining = async (key: string, userId: string) =>
    contents((await platform.call("/memories", { key, query: { user_id: userId } })).body);

  it("deletes the end-user's memory and answers 204, then 404", async () => {
    const userId = freshUserId();
    const kept = await saveMemory(strict.key, userId, "kept");
    const doomed = await saveMemory(strict.key, userId, "doomed");
    const { status, body } = await platform.call(`/memories/${doomed.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: userId },
    });
    expect(status).toBe(204);
    expect(body).toBeNull();
    expect(await remaining(strict.key, userId)).toEqual([kept.content]);

    const again = await platform.call(`/memories/${doomed.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: userId },
    });
    expect(again.status).toBe(404);
    expect(again.body.error.type).toBe("not_found");
  });

  it("takes user_id from a JSON body too", async () => {
    const userId = freshUserId();
    const memory = await saveMemory(strict.key, userId, "via body");
    const { status } = await platform.call(`/memories/${memory.id}`, {
      key: strict.key,
      method: "DELETE",
      body: { user_id: userId },
    });
    expect(status).toBe(204);
    expect(await remaining(strict.key, userId)).toEqual([]);
  });

  it("requires user_id whatever strict mode says", async () => {
    for (const account of [strict, lax]) {
      const userId = freshUserId();
      const memory = await saveMemory(account.key, userId, "guarded");
      const { status, body } = await platform.call(`/memories/${memory.id}`, { key: account.key, method: "DELETE" });
      expect(status).toBe(422);
      expect(body.error.message).toMatch(/^user_id: /);
      expect(await remaining(account.key, userId)).toEqual(["guarded"]);
    }
  });

  it("answers 404 for another end-user's memory and keeps it", async () => {
    const owner = freshUserId();
    const memory = await saveMemory(strict.key, owner, "owner's");
    const { status } = await platform.call(`/memories/${memory.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: freshUserId() },
    });
    expect(status).toBe(404);
    expect(await remaining(strict.key, owner)).toEqual(["owner's"]);
  });

  it("answers 404 for an account-level memory, whatever user_id is given", async () => {
    const accountLevel = await platform.database.prisma.platformMemory.create({
      data: { accountId: lax.id, endUserId: null, content: "account-level", source: "agent" },
    });
    const { status } = await platform.call(`/memories/${accountLevel.id}`, {
      key: lax.key,
      method: "DELETE",
      query: { user_id: freshUserId() },
    });
    expect(status).toBe(404);
    expect(await platform.database.prisma.platformMemory.count({ where: { id: accountLevel.id } })).toBe(1);
  });

  it("answers 404 for another account's memory, even under the same user_id, and keeps it", async () => {
    const userId = freshUserId();
    const theirs = await saveMemory(other.key, userId, "theirs");
    const { status, body } = await platform.call(`/memories/${theirs.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: userId },
    });
    expect(status).toBe(404);
    expect(JSON.stringify(body)).not.toContain("theirs");
    expect(await remaining(other.key, userId)).toEqual(["theirs"]);
  });

  it("answers 422 for a memory id that is not an integer, and 401 without a key", async () => {
    const bad = await platform.call("/memories/abc", { key: strict.key, method: "DELETE", query: { user_id: "u" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0].field).toBe("memory_id");
    const userId = freshUserId();
    const memory = await saveMemory(strict.key, userId, "still here");
    const anonymous = await platform.call(`/memories/${memory.id}`, { method: "DELETE", query: { user_id: userId } });
    expect(anonymous.status).toBe(401);
    expect(await remaining(strict.key, userId)).toEqual(["still here"]);
  });
});
