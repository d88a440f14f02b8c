// End-user profiles: /users and /users/{user_id}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let other: Account;
beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  other = await platform.signup();
});
afterAll(() => platform.close());

let counter = 0;
const freshUserId = (label = "user") => `${label}-${++counter}`;
const path = (userId: string) => `/users/${encodeURIComponent(userId)}`;

async function createProfile(key: string, body: Record<string, unknown>) {
  const response = await platform.call("/users", { key, body });
  if (response.status !== 201) throw new Error(`POST /users: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

describe("POST /users", () => {
  it("creates a profile with every field and answers 201", async () => {
    const userId = freshUserId();
    const { status, body } = await platform.call("/users", {
      key: account.key,
      body: { user_id: userId, name: "Ada", email: "ada@example.test", company: "Engines", metadata: { tier: "gold" } },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      user_id: userId,
      name: "Ada",
      email: "ada@example.test",
      company: "Engines",
      metadata: { tier: "gold" },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await platform.call(path(userId), { key: account.key })).body).toEqual(body);
  });

  it("creates a profile from user_id alone, with the other fields null", async () => {
    const userId = freshUserId();
    const { status, body } = await platform.call("/users", { key: account.key, body: { user_id: userId } });
    expect(status).toBe(201);
    expect(body).toMatchObject({ user_id: userId, name: null, email: null, company: null, metadata: null });
  });

  it("fills in a profile that so far exists only because its user_id was used", async () => {
    const userId = freshUserId();
    const used = await platform.call("/memories", { key: account.key, body: { user_id: userId, content: "likes tea" } });
    expect(used.status).toBe(201);
    const implicit = await platform.call(path(userId), { key: account.key });
    expect(implicit.status).toBe(200);
    expect(implicit.body).toMatchObject({ name: null, email: null, company: null, metadata: null });

    const { status, body } = await platform.call("/users", {
      key: account.key,
      body: { user_id: userId, name: "Grace", company: "Navy" },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: implicit.body.id, user_id: userId, name: "Grace", company: "Navy", email: null });
    // The same profile: what was scoped to it is still there.
    const memories = await platform.call("/memories", { key: account.key, query: { user_id: userId } });
    expect(memories.body.data.map((memory: { content: string }) => memory.content)).toEqual(["likes tea"]);
  });

  it("refuses with 409 a profile that already holds profile data, and leaves it unchanged", async () => {
    const userId = freshUserId();
    const created = await createProfile(account.key, { user_id: userId, name: "First" });
    const { status, body } = await platform.call("/users", { key: account.key, body: { user_id: userId, name: "Second" } });
    expect(status).toBe(409);
    expect(body.error).toMatchObject({ type: "conflict_error", code: 409, error_code: "end_user_exists" });
    expect(body.error.message).toMatch(/^user_id: /);
    expect((await platform.call(path(userId), { key: account.key })).body).toEqual(created);
  });

  it("keeps user_ids apart per account: the same user_id in another account is another profile", async () => {
    const userId = freshUserId("shared");
    const mine = await createProfile(account.key, { user_id: userId, name: "Mine" });
    const theirs = await createProfile(other.key, { user_id: userId, name: "Theirs" });
    expect(theirs.id).not.toBe(mine.id);
    expect((await platform.call(path(userId), { key: account.key })).body.name).toBe("Mine");
  });

  it("answers 422 naming the field for a missing user_id, blank name, bad email or non-object metadata", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "No id" }, "user_id"],
      [{ user_id: "   " }, "user_id"],
      [{ user_id: "u", name: "  " }, "name"],
      [{ user_id: "u", email: "not-an-email" }, "email"],
      [{ user_id: "u", company: "x".repeat(256) }, "company"],
      [{ user_id: "u", metadata: ["a"] }, "metadata"],
    ];
    for (const [body, field] of cases) {
      const response = await platform.call("/users", { key: account.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
  });

  it("limits metadata to 10240 bytes serialized, counting bytes rather than characters", async () => {
    // {"k":"…"} is 8 bytes around the value.
    const atLimit = await platform.call("/users", {
      key: account.key,
      body: { user_id: freshUserId(), metadata: { k: "x".repeat(10_240 - 8) } },
    });
    expect(atLimit.status).toBe(201);
    for (const value of ["x".repeat(10_240 - 7), "é".repeat(5_200)]) {
      const { status, body } = await platform.call("/users", {
        key: account.key,
        body: { user_id: freshUserId(), metadata: { k: value } },
      });
      expect(status).toBe(422);
      expect(body.error.message).toBe("metadata: metadata must not exceed 10240 bytes serialized");
      expect(body.error.details.fields).toEqual([
        { field: "metadata", message: "metadata must not exceed 10240 bytes serialized" },
      ]);
    }
  });

  it("is account-scoped: user_id in the query string is an unknown parameter", async () => {
    const { status, body } = await platform.call("/users", {
      key: account.key,
      query: { user_id: "someone" },
      body: { user_id: freshUserId() },
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ error_code: "unknown_query_parameter", details: { parameter: "user_id" } });
  });

  it("needs a key", async () => {
    const userId = freshUserId();
    expect((await platform.call("/users", { body: { user_id: userId } })).status).toBe(401);
    expect((await platform.call("/users", { key: "sk_inlay_nonsense", body: { user_id: userId } })).status).toBe(401);
    expect((await platform.call(path(userId), { key: account.key })).status).toBe(404);
  });
});

describe("GET /users", () => {
  it("pages through the account's profiles newest first, with starting_after taking a profile's id", async () => {
    const lister = await platform.signup();
    const userIds = ["p1", "p2", "p3", "p4", "p5"];
    for (const userId of userIds) await createProfile(lister.key, { user_id: userId });
    await createProfile(other.key, { user_id: "not-listed" });

    const first = await platform.call("/users", { key: lister.key, query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: { user_id: string }) => p.user_id)).toEqual(["p5", "p4"]);
    expect(first.body.has_more).toBe(true);

    const second = await platform.call("/users", {
      key: lister.key,
      query: { limit: 2, starting_after: first.body.data[1].id },
    });
    expect(second.body.data.map((p: { user_id: string }) => p.user_id)).toEqual(["p3", "p2"]);
    expect(second.body.has_more).toBe(true);

    const last = await platform.call("/users", {
      key: lister.key,
      query: { limit: 2, starting_after: second.body.data[1].id },
    });
    expect(last.body).toEqual({ data: [expect.objectContaining({ user_id: "p1" })], has_more: false });

    const all = await platform.call("/users", { key: lister.key });
    expect(all.body.data).toHaveLength(5);
    expect(all.body.has_more).toBe(false);
  });

  it("lists profiles created on first use of a user_id", async () => {
    const lister = await platform.signup();
    await platform.call("/memories", { key: lister.key, body: { user_id: "implicit", content: "x" } });
    const { body } = await platform.call("/users", { key: lister.key });
    expect(body.data.map((p: { user_id: string }) => p.user_id)).toEqual(["implicit"]);
  });

  it("validates limit and starting_after", async () => {
    for (const query of [{ limit: 0 }, { limit: 101 }, { limit: "many" }, { starting_after: "p1" }]) {
      const { status, body } = await platform.call("/users", { key: account.key, query });
      expect(status, JSON.stringify(query)).toBe(422);
      expect(body.error.details.fields[0].field).toBe(Object.keys(query)[0]);
    }
  });

  it("refuses user_id (account-scoped) and a missing key", async () => {
    const scoped = await platform.call("/users", { key: account.key, query: { user_id: "u" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.error_code).toBe("unknown_query_parameter");
    expect((await platform.call("/users")).status).toBe(401);
  });
});

describe("GET /users/{user_id}", () => {
  it("returns the profile, for user_ids that need escaping too", async () => {
    for (const userId of ["alice@example.test", "team a/alice", "ünïcode-ß"]) {
      const created = await createProfile(account.key, { user_id: userId, name: "Escaped" });
      const { status, body } = await platform.call(path(userId), { key: account.key });
      expect(status, userId).toBe(200);
      expect(body).toEqual(created);
    }
  });

  it("answers 404 for an unknown user_id without creating a profile", async () => {
    const userId = freshUserId("ghost");
    const { status, body } = await platform.call(path(userId), { key: account.key });
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ type: "not_found", code: 404 });
    const row = await platform.database.prisma.platformEndUser.findFirst({ where: { externalId: userId } });
    expect(row).toBeNull();
  });

  it("answers 404 for another account's profile, and 401 without a key", async () => {
    const userId = freshUserId("theirs");
    await createProfile(other.key, { user_id: userId, name: "Secret" });
    const { status, body } = await platform.call(path(userId), { key: account.key });
    expect(status).toBe(404);
    expect(JSON.stringify(body)).not.toContain("Secret");
    expect((await platform.call(path(userId))).status).toBe(401);
  });
});

describe("PATCH /users/{user_id}", () => {
  it("changes the fields given, leaves omitted ones and clears those set to null", async () => {
    const userId = freshUserId();
    const created = await createProfile(account.key, {
      user_id: userId,
      name: "Old",
      email: "old@example.test",
      company: "OldCo",
      metadata: { a: 1 },
    });
    const { status, body } = await platform.call(path(userId), {
      key: account.key,
      method: "PATCH",
      body: { name: "New", company: null, metadata: { b: 2 } },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: created.id,
      user_id: userId,
      name: "New",
      email: "old@example.test",
      company: null,
      metadata: { b: 2 },
      created_at: created.created_at,
    });
    expect(Date.parse(body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    const cleared = await platform.call(path(userId), { key: account.key, method: "PATCH", body: { metadata: null } });
    expect(cleared.body).toMatchObject({ name: "New", metadata: null });
    expect((await platform.call(path(userId), { key: account.key })).body).toEqual(cleared.body);
  });

  it("answers an empty change with the profile as it is", async () => {
    const userId = freshUserId();
    const created = await createProfile(account.key, { user_id: userId, name: "Same" });
    const { status, body } = await platform.call(path(userId), { key: account.key, method: "PATCH", body: {} });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: created.id, name: "Same" });
  });

  it("validates like creation, naming the field", async () => {
    const userId = freshUserId();
    await createProfile(account.key, { user_id: userId });
    const big = await platform.call(path(userId), {
      key: account.key,
      method: "PATCH",
      body: { metadata: { k: "x".repeat(11_000) } },
    });
    expect(big.status).toBe(422);
    expect(big.body.error.message).toContain("metadata must not exceed 10240 bytes serialized");
    const blank = await platform.call(path(userId), { key: account.key, method: "PATCH", body: { name: "" } });
    expect(blank.status).toBe(422);
    expect(blank.body.error.message).toMatch(/^name: /);
  });

  it("answers 404 for an unknown user_id or another account's profile, and 401 without a key", async () => {
    const unknown = await platform.call(path(freshUserId("ghost")), {
      key: account.key,
      method: "PATCH",
      body: { name: "X" },
    });
    expect(unknown.status).toBe(404);

    const userId = freshUserId("theirs");
    await createProfile(other.key, { user_id: userId, name: "Theirs" });
    const foreign = await platform.call(path(userId), { key: account.key, method: "PATCH", body: { name: "Mine now" } });
    expect(foreign.status).toBe(404);
    expect((await platform.call(path(userId), { method: "PATCH", body: { name: "X" } })).status).toBe(401);
    expect((await platform.call(path(userId), { key: other.key })).body.name).toBe("Theirs");
  });
});

describe("DELETE /users/{user_id}", () => {
  it("deletes the profile and everything scoped to it, and nothing of other end-users", async () => {
    const doomed = freshUserId("doomed");
    const kept = freshUserId("kept");
    for (const userId of [doomed, kept]) {
      await createProfile(account.key, { user_id: userId });
      await platform.call("/memories", { key: account.key, body: { user_id: userId, content: `memory of ${userId}` } });
      await platform.call("/permissions", { key: account.key, body: { user_id: userId, tool: "web_search" } });
    }
    const doomedRow = await platform.database.prisma.platformEndUser.findFirstOrThrow({
      where: { accountId: account.id, externalId: doomed },
    });

    const { status, body } = await platform.call(path(doomed), { key: account.key, method: "DELETE" });
    expect(status).toBe(204);
    expect(body).toBeNull();

    const prisma = platform.database.prisma;
    expect(await prisma.platformMemory.count({ where: { endUserId: doomedRow.id } })).toBe(0);
    expect(await prisma.platformPermission.count({ where: { endUserId: doomedRow.id } })).toBe(0);
    expect((await platform.call(path(doomed), { key: account.key })).status).toBe(404);

    const keptMemories = await platform.call("/memories", { key: account.key, query: { user_id: kept } });
    expect(keptMemories.body.data).toHaveLength(1);
    const keptPermissions = await platform.call("/permissions", { key: account.key, query: { user_id: kept } });
    expect(keptPermissions.body.data).toHaveLength(1);

    // The user_id can be used again: it starts over with a new, empty profile.
    const again = await platform.call("/memories", { key: account.key, query: { user_id: doomed } });
    expect(again.body.data).toEqual([]);
    expect((await platform.call(path(doomed), { key: account.key })).body.id).not.toBe(doomedRow.id);
  });

  it("answers 404 for an unknown or already deleted user_id", async () => {
    const userId = freshUserId();
    await createProfile(account.key, { user_id: userId });
    expect((await platform.call(path(userId), { key: account.key, method: "DELETE" })).status).toBe(204);
    const again = await platform.call(path(userId), { key: account.key, method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body.error.type).toBe("not_found");
  });

  it("cannot delete another account's profile, and needs a key", async () => {
    const userId = freshUserId("theirs");
    await createProfile(other.key, { user_id: userId, name: "Theirs" });
    expect((await platform.call(path(userId), { key: account.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(path(userId), { method: "DELETE" })).status).toBe(401);
    expect((await platform.call(path(userId), { key: other.key })).status).toBe(200);
  });
});
