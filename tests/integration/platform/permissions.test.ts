// End-user tool allow-list: /permissions and /permissions/{permission_id}.
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
const freshUserId = () => `permission-user-${++counter}`;

async function allow(key: string, userId: string, tool: string) {
  const response = await platform.call("/permissions", { key, body: { user_id: userId, tool } });
  if (response.status !== 201) throw new Error(`POST /permissions: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; user_id: string; tool: string; created_at: string };
}

const tools = (body: { data: { tool: string }[] }) => body.data.map((permission) => permission.tool);

describe("POST /permissions", () => {
  it("allows a tool for the end-user and answers 201 with the record", async () => {
    const userId = freshUserId();
    const { status, body } = await platform.call("/permissions", {
      key: strict.key,
      body: { user_id: userId, tool: " web_search " },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      user_id: userId,
      tool: "web_search",
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it("is idempotent: the same permission again answers 201 with the existing record", async () => {
    const userId = freshUserId();
    const first = await allow(strict.key, userId, "send_email");
    const again = await platform.call("/permissions", {
      key: strict.key,
      query: { user_id: userId },
      body: { tool: "send_email" },
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first);
    const listed = await platform.call("/permissions", { key: strict.key, query: { user_id: userId } });
    expect(listed.body.data).toEqual([first]);
  });

  it("stays idempotent under concurrent requests for the same permission", async () => {
    const userId = freshUserId();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        platform.call("/permissions", { key: strict.key, body: { user_id: userId, tool: "calendar" } }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(201));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    const listed = await platform.call("/permissions", { key: strict.key, query: { user_id: userId } });
    expect(tools(listed.body)).toEqual(["calendar"]);
  });

  it("keeps end-users apart: the same tool for another end-user is another record", async () => {
    const a = await allow(strict.key, freshUserId(), "shared_tool");
    const b = await allow(strict.key, freshUserId(), "shared_tool");
    expect(b.id).not.toBe(a.id);
  });

  it("requires user_id whatever strict mode says, with 422 naming it", async () => {
    const lax = await platform.signup({ require_end_user_id: false });
    for (const account of [strict, lax]) {
      const { status, body } = await platform.call("/permissions", { key: account.key, body: { tool: "web_search" } });
      expect(status).toBe(422);
      expect(body.error).toMatchObject({ type: "validation_error", error_code: "end_user_id_required" });
      expect(body.error.message).toMatch(/^user_id: /);
    }
  });

  it("requires a tool name, not blank, at most 255 characters", async () => {
    for (const body of [{ user_id: "u" }, { user_id: "u", tool: "  " }, { user_id: "u", tool: "t".repeat(256) }]) {
      const response = await platform.call("/permissions", { key: strict.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["tool"]);
    }
  });

  it("needs a key", async () => {
    expect((await platform.call("/permissions", { body: { user_id: "u", tool: "t" } })).status).toBe(401);
  });
});

describe("GET /permissions", () => {
  it("pages through one end-user's permissions newest first", async () => {
    const userId = freshUserId();
    for (const tool of ["t1", "t2", "t3"]) await allow(strict.key, userId, tool);
    await allow(strict.key, freshUserId(), "not mine");

    const first = await platform.call("/permissions", { key: strict.key, query: { user_id: userId, limit: 2 } });
    expect(first.status).toBe(200);
    expect(tools(first.body)).toEqual(["t3", "t2"]);
    expect(first.body.has_more).toBe(true);
    const rest = await platform.call("/permissions", {
      key: strict.key,
      query: { user_id: userId, limit: 2, starting_after: first.body.data[1].id },
    });
    expect(tools(rest.body)).toEqual(["t1"]);
    expect(rest.body.has_more).toBe(false);
  });

  it("refuses a listing without user_id in strict mode", async () => {
    const { status, body } = await platform.call("/permissions", { key: strict.key });
    expect(status).toBe(422);
    expect(body.error).toMatchObject({ type: "validation_error", error_code: "end_user_id_required" });
    expect(body.error.message).toMatch(/^user_id: .*require_end_user_id/);
  });

  it("lists every permission of the account without user_id when strict mode is off, and only the account's", async () => {
    const lax = await platform.signup({ require_end_user_id: false });
    await allow(lax.key, "alice", "a_tool");
    await allow(lax.key, "bob", "b_tool");
    await allow(other.key, "alice", "other_account_tool");
    const { status, body } = await platform.call("/permissions", { key: lax.key });
    expect(status).toBe(200);
    expect(body.data.map((p: { user_id: string; tool: string }) => `${p.user_id}:${p.tool}`)).toEqual([
      "bob:b_tool",
      "alice:a_tool",
    ]);
    expect(body.has_more).toBe(false);
  });

  it("does not show another account's permissions for the same user_id, and needs a key", async () => {
    const userId = freshUserId();
    await allow(other.key, userId, "theirs");
    const { body } = await platform.call("/permissions", { key: strict.key, query: { user_id: userId } });
    expect(body).toEqual({ data: [], has_more: false });
    expect((await platform.call("/permissions", { query: { user_id: userId } })).status).toBe(401);
  });

  it("validates limit", async () => {
    const { status, body } = await platform.call("/permissions", { key: strict.key, query: { user_id: "u", limit: 500 } });
    expect(status).toBe(422);
    expect(body.error.details.fields[0].field).toBe("limit");
  });
});

describe("DELETE /permissions/{permission_id}", () => {
  const remaining = async (key: string, userId: string) =>
    tools((await platform.call("/permissions", { key, query: { user_id: userId } })).body);

  it("deletes the end-user's permission and answers 204, then 404", async () => {
    const userId = freshUserId();
    await allow(strict.key, userId, "kept");
    const doomed = await allow(strict.key, userId, "doomed");
    const { status, body } = await platform.call(`/permissions/${doomed.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: userId },
    });
    expect(status).toBe(204);
    expect(body).toBeNull();
    expect(await remaining(strict.key, userId)).toEqual(["kept"]);
    const again = await platform.call(`/permissions/${doomed.id}`, {
      key: strict.key,
      method: "DELETE",
      query: { user_id: userId },
    });
    expect(again.status).toBe(404);
  });

  it("answers 404 for another end-user's permission and keeps it", async () => {
    const owner = freshUserId();
    const permission = await allow(strict.key, owner, "owner_tool");
    for (const request of [{ query: { user_id: freshUserId() } }, { body: { user_id: freshUserId() } }]) {
      const { status } = await platform.call(`/permissions/${permission.id}`, {
        key: strict.key,
        method: "DELETE",
        ...request,
      });
      expect(status).toBe(404);
    }
    expect(await remaining(strict.key, owner)).toEqual(["owner_tool"]);
  });

  it("refuses a deletion without user_id and keeps the end-user's permission (the account view cannot reach it)", async () => {
    const userId = freshUserId();
    const permission = await allow(lax.key, userId, "account_view");
    const { status, body } = await platform.call(`/permissions/${permission.id}`, { key: lax.key, method: "DELETE" });
    expect(status).toBe(422);
    expect(body.error.message).toContain("user_id");
    expect(await remaining(lax.key, userId)).toEqual(["account_view"]);
  });

  it("answers 404 for another account's permission (422 without user_id) and keeps it", async () => {
    const userId = freshUserId();
    const theirs = await allow(other.key, userId, "their_tool");
    for (const [query, expected] of [[{ user_id: userId }, 404], [{}, 422]] as const) {
      const { status } = await platform.call(`/permissions/${theirs.id}`, { key: lax.key, method: "DELETE", query });
      expect(status).toBe(expected);
    }
    expect(await remaining(other.key, userId)).toEqual(["their_tool"]);
  });

  it("answers 422 for an id that is not an integer, and 401 without a key", async () => {
    const bad = await platform.call("/permissions/1.5", { key: strict.key, method: "DELETE" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0].field).toBe("permission_id");
    const userId = freshUserId();
    const permission = await allow(strict.key, userId, "still_here");
    expect((await platform.call(`/permissions/${permission.id}`, { method: "DELETE" })).status).toBe(401);
    expect(await remaining(strict.key, userId)).toEqual(["still_here"]);
  });
});
