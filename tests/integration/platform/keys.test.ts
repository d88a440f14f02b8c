import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const INFO_FIELDS = ["created_at", "expires_at", "hint", "id", "kind", "last_used_at", "name"];
const DAY_MS = 24 * 60 * 60 * 1000;

async function createKey(account: Account, body: Record<string, unknown> = { name: "ci" }) {
  const response = await platform.call("/keys", { key: account.key, body });
  if (response.status !== 201) {
    throw new Error(`POST /keys failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body as { id: number; key: string; name: string; expires_at: string | null };
}

async function expire(keyId: number) {
  await platform.database.prisma.platformApiKey.update({
    where: { id: keyId },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
}

const whoAmI = (key: string) => platform.call("/verify/status", { key });

describe("POST /keys", () => {
  it("creates a named key, returns its secret once and stores only a hash", async () => {
    const account = await platform.signup();
    const { status, body } = await platform.call("/keys", { key: account.key, body: { name: "  ci runner " } });
    expect(status).toBe(201);
    expect(Object.keys(body).sort()).toEqual([...INFO_FIELDS, "key"].sort());
    expect(body).toMatchObject({ kind: "named", name: "ci runner", expires_at: null, last_used_at: null });
    expect(body.key).toMatch(/^sk_inlay_[0-9A-Za-z]{38}$/);
    expect(body.hint).toBe(`${body.key.slice(0, 13)}…${body.key.slice(-4)}`);

    const row = await platform.database.prisma.platformApiKey.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.hash).toBe(sha256(body.key));
    expect(JSON.stringify(row)).not.toContain(body.key);

    // It authenticates on its own, and the default key still does too.
    expect((await whoAmI(body.key)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);
  });

  it("sets expires_at from expires_in_days", async () => {
    const account = await platform.signup();
    const before = Date.now();
    const key = await createKey(account, { name: "temp", expires_in_days: 30 });
    const expiresAt = Date.parse(key.expires_at!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 1000);
    expect((await whoAmI(key.key)).status).toBe(200);
  });

  it("validates name and expires_in_days, naming the field", async () => {
    const account = await platform.signup();
    const cases: [unknown, RegExp][] = [
      [{}, /^name: /],
      [{ name: "   " }, /^name: must not be blank/],
      [{ name: "x".repeat(256) }, /^name: must be at most 255 characters/],
      [{ name: 42 }, /^name: /],
      [{ name: "ok", expires_in_days: 0 }, /^expires_in_days: must be at least 1/],
      [{ name: "ok", expires_in_days: 1.5 }, /^expires_in_days: must be an integer/],
      [{ name: "ok", expires_in_days: "30" }, /^expires_in_days: /],
      [{ name: "ok", expires_in_days: 100_000 }, /^expires_in_days: must be at most 3650/],
    ];
    for (const [body, message] of cases) {
      const response = await platform.call("/keys", { key: account.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await platform.database.prisma.platformApiKey.count({ where: { accountId: account.id } })).toBe(1);
  });
});

describe("GET /keys", () => {
  it("describes the default key without its secret", async () => {
    const account = await platform.signup();
    const { status, body } = await platform.call("/keys", { key: account.key });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(INFO_FIELDS);
    expect(body).toMatchObject({ kind: "default", name: "default", expires_at: null });
    expect(body.hint).toBe(`${account.key.slice(0, 13)}…${account.key.slice(-4)}`);
    // The request itself counts as use.
    expect(Date.parse(body.last_used_at)).not.toBeNaN();
  });

  it("answers 404 when the default key is revoked or expired", async () => {
    const account = await platform.signup();
    const named = await createKey(account);
    const { body: info } = await platform.call("/keys", { key: account.key });
    await expire(info.id);
    const expired = await platform.call("/keys", { key: named.key });
    expect(expired.status).toBe(404);
    expect(expired.body.error).toMatchObject({ type: "not_found", error_code: "default_key_not_found" });
  });
});

describe("DELETE /keys", () => {
  it("revokes the default key at once and leaves named keys working", async () => {
    const account = await platform.signup();
    const named = await createKey(account);
    const { status, body } = await platform.call("/keys", { key: account.key, method: "DELETE" });
    expect(status).toBe(204);
    expect(body).toBeNull();
    expect((await whoAmI(account.key)).status).toBe(401);
    expect((await whoAmI(named.key)).status).toBe(200);
    expect((await platform.call("/keys", { key: named.key })).status).toBe(404);
    // Nothing left to revoke.
    expect((await platform.call("/keys", { key: named.key, method: "DELETE" })).status).toBe(404);
  });
});

describe("POST /keys/rotate", () => {
  it("replaces the default key: the old one fails at once, named keys keep working", async () => {
    const account = await platform.signup();
    const named = await createKey(account);
    const { status, body } = await platform.call("/keys/rotate", { key: account.key, method: "POST" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([...INFO_FIELDS, "key"].sort());
    expect(body).toMatchObject({ kind: "default", name: "default" });
    expect(body.key).not.toBe(account.key);
    expect((await whoAmI(account.key)).status).toBe(401);
    expect((await whoAmI(body.key)).status).toBe(200);
    expect((await whoAmI(named.key)).status).toBe(200);
    expect((await platform.call("/keys", { key: body.key })).body.id).toBe(body.id);
    const row = await platform.database.prisma.platformApiKey.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.hash).toBe(sha256(body.key));
  });

  it("mints a default key when the account has none", async () => {
    const account = await platform.signup();
    const named = await createKey(account);
    await platform.call("/keys", { key: account.key, method: "DELETE" });
    const { status, body } = await platform.call("/keys/rotate", { key: named.key, method: "POST" });
    expect(status).toBe(200);
    expect(body.kind).toBe("default");
    expect((await whoAmI(body.key)).status).toBe(200);
  });

  it("leaves exactly one live default key after concurrent rotations", async () => {
    const account = await platform.signup();
    const named = await createKey(account);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => platform.call("/keys/rotate", { key: named.key, method: "POST" })),
    );
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    const live = await platform.database.prisma.platformApiKey.findMany({
      where: { accountId: account.id, kind: "default", revokedAt: null },
    });
    expect(live).toHaveLength(1);
    const working = [];
    for (const result of results) working.push((await whoAmI(result.body.key)).status);
    expect(working.filter((status) => status === 200)).toHaveLength(1);
  });
});

describe("GET /keys/all", () => {
  it("lists named keys that are not revoked, expired ones included, never secrets", async () => {
    const account = await platform.signup();
    const kept = await createKey(account, { name: "kept" });
    const expired = await createKey(account, { name: "expired", expires_in_days: 1 });
    const revoked = await createKey(account, { name: "revoked" });
    await expire(expired.id);
    await platform.call(`/keys/${revoked.id}`, { key: account.key, method: "DELETE" });

    const { status, body } = await platform.call("/keys/all", { key: account.key });
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    expect(body.data.map((key: { id: number }) => key.id)).toEqual([kept.id, expired.id]);
    for (const item of body.data) {
      expect(Object.keys(item).sort()).toEqual(INFO_FIELDS);
      expect(item.kind).toBe("named");
    }
    expect(Date.parse(body.data[1].expires_at)).toBeLessThan(Date.now());
    const text = JSON.stringify(body);
    for (const secret of [account.key, kept.key, expired.key]) expect(text).not.toContain(secret);
  });

  it("pages with limit and starting_after", async () => {
    const account = await platform.signup();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createKey(account, { name: `k${i}` })).id);
    const first = await platform.call("/keys/all", { key: account.key, query: { limit: 2 } });
    expect(first.body.data.map((key: { id: number }) => key.id)).toEqual(ids.slice(0, 2));
    expect(first.body.has_more).toBe(true);
    const second = await platform.call("/keys/all", {
      key: account.key,
      query: { limit: 2, starting_after: ids[1] },
    });
    expect(second.body.data.map((key: { id: number }) => key.id)).toEqual(ids.slice(2));
    expect(second.body.has_more).toBe(false);
  });

  it("validates the paging parameters, naming the field", async () => {
    const account = await platform.signup();
    for (const query of [{ limit: 0 }, { limit: 101 }, { limit: "many" }]) {
      const response = await platform.call("/keys/all", { key: account.key, query });
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(/^limit: /);
    }
    const cursor = await platform.call("/keys/all", { key: account.key, query: { starting_after: "x" } });
    expect(cursor.status).toBe(422);
    expect(cursor.body.error.message).toMatch(/^starting_after: /);
  });

  it("shows only the caller's account", async () => {
    const mine = await platform.signup();
    const other = await platform.signup();
    await createKey(other, { name: "theirs" });
    const { body } = await platform.call("/keys/all", { key: mine.key });
    expect(body).toEqual({ data: [], has_more: false });
  });
});

describe("DELETE /keys/{key_id}", () => {
  it("revokes one named key at once and leaves the others working", async () => {
    const account = await platform.signup();
    const doomed = await createKey(account, { name: "doomed" });
    const spared = await createKey(account, { name: "spared" });
    expect((await whoAmI(doomed.key)).status).toBe(200);
    const { status } = await platform.call(`/keys/${doomed.id}`, { key: account.key, method: "DELETE" });
    expect(status).toBe(204);
    expect((await whoAmI(doomed.key)).status).toBe(401);
    expect((await whoAmI(spared.key)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);
    const row = await platform.database.prisma.platformApiKey.findUniqueOrThrow({ where: { id: doomed.id } });
    expect(row.revokedAt).not.toBeNull();
  });

  it("revokes an expired key too", async () => {
    const account = await platform.signup();
    const key = await createKey(account, { name: "old", expires_in_days: 1 });
    await expire(key.id);
    expect((await platform.call(`/keys/${key.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call("/keys/all", { key: account.key })).body.data).toEqual([]);
  });

  it("answers 404 for a missing, revoked, default or foreign key id", async () => {
    const account = await platform.signup();
    const other = await platform.signup();
    const theirs = await createKey(other);
    const revoked = await createKey(account);
    await platform.call(`/keys/${revoked.id}`, { key: account.key, method: "DELETE" });
    const { body: defaultKey } = await platform.call("/keys", { key: account.key });
    for (const id of [999_999_999, revoked.id, defaultKey.id, theirs.id]) {
      const response = await platform.call(`/keys/${id}`, { key: account.key, method: "DELETE" });
      expect(response.status, String(id)).toBe(404);
      expect(response.body.error.type).toBe("not_found");
    }
    expect((await whoAmI(theirs.key)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);
  });

  it("validates key_id", async () => {
    const account = await platform.signup();
    for (const id of ["abc", "0", "-1"]) {
      const response = await platform.call(`/keys/${id}`, { key: account.key, method: "DELETE" });
      expect(response.status, id).toBe(422);
      expect(response.body.error.message).toMatch(/^key_id: /);
    }
  });
});

describe("POST /keys/{key_id}/rotate", () => {
  it("gives one named key a new secret under the same name and expiry date", async () => {
    const account = await platform.signup();
    const target = await createKey(account, { name: "deploy", expires_in_days: 7 });
    const bystander = await createKey(account, { name: "bystander" });
    const { status, body } = await platform.call(`/keys/${target.id}/rotate`, { key: account.key, method: "POST" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([...INFO_FIELDS, "key"].sort());
    expect(body).toMatchObject({ kind: "named", name: "deploy", expires_at: target.expires_at });
    expect(body.id).not.toBe(target.id);
    expect(body.key).not.toBe(target.key);

    expect((await whoAmI(target.key)).status).toBe(401);
    expect((await whoAmI(body.key)).status).toBe(200);
    expect((await whoAmI(bystander.key)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);

    const row = await platform.database.prisma.platformApiKey.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.hash).toBe(sha256(body.key));
    const listed = await platform.call("/keys/all", { key: account.key });
    expect(listed.body.data.map((key: { id: number }) => key.id)).toEqual([bystander.id, body.id]);
    // The old id is gone for good.
    expect((await platform.call(`/keys/${target.id}/rotate`, { key: account.key, method: "POST" })).status).toBe(404);
  });

  it("keeps no expiry for a key that had none", async () => {
    const account = await platform.signup();
    const target = await createKey(account, { name: "forever" });
    const { body } = await platform.call(`/keys/${target.id}/rotate`, { key: account.key, method: "POST" });
    expect(body.expires_at).toBeNull();
  });

  it("refuses an expired key with 409 key_expired", async () => {
    const account = await platform.signup();
    const key = await createKey(account, { name: "stale", expires_in_days: 1 });
    await expire(key.id);
    const { status, body } = await platform.call(`/keys/${key.id}/rotate`, { key: account.key, method: "POST" });
    expect(status).toBe(409);
    expect(body.error).toMatchObject({ type: "conflict_error", error_code: "key_expired" });
  });

  it("answers 404 for a missing, revoked, default or foreign key id", async () => {
    const account = await platform.signup();
    const other = await platform.signup();
    const theirs = await createKey(other);
    const revoked = await createKey(account);
    await platform.call(`/keys/${revoked.id}`, { key: account.key, method: "DELETE" });
    const { body: defaultKey } = await platform.call("/keys", { key: account.key });
    for (const id of [999_999_999, revoked.id, defaultKey.id, theirs.id]) {
      const response = await platform.call(`/keys/${id}/rotate`, { key: account.key, method: "POST" });
      expect(response.status, String(id)).toBe(404);
    }
    expect((await whoAmI(theirs.key)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);
    const abc = await platform.call("/keys/abc/rotate", { key: account.key, method: "POST" });
    expect(abc.status).toBe(422);
    expect(abc.body.error.message).toMatch(/^key_id: /);
  });
});

describe("every /keys endpoint", () => {
  const endpoints = (keyId: number): { path: string; method: string; body?: unknown }[] => [
    { path: "/keys", method: "POST", body: { name: "x" } },
    { path: "/keys", method: "GET" },
    { path: "/keys", method: "DELETE" },
    { path: "/keys/rotate", method: "POST" },
    { path: "/keys/all", method: "GET" },
    { path: `/keys/${keyId}`, method: "DELETE" },
    { path: `/keys/${keyId}/rotate`, method: "POST" },
  ];

  it("refuses no key, a revoked key and an expired key with 401", async () => {
    const account = await platform.signup();
    const target = await createKey(account, { name: "target" });
    const revoked = await createKey(account, { name: "revoked" });
    await platform.call(`/keys/${revoked.id}`, { key: account.key, method: "DELETE" });
    const expired = await createKey(account, { name: "expired", expires_in_days: 1 });
    await expire(expired.id);

    for (const endpoint of endpoints(target.id)) {
      for (const [label, key] of [["no key", null], ["revoked", revoked.key], ["expired", expired.key]] as const) {
        const response = await platform.call(endpoint.path, { method: endpoint.method, body: endpoint.body, key });
        expect(response.status, `${endpoint.method} ${endpoint.path} with ${label}`).toBe(401);
        expect(response.body.error.type).toBe("authentication_error");
      }
    }
    // None of those calls changed anything.
    expect((await whoAmI(account.key)).status).toBe(200);
    expect((await whoAmI(target.key)).status).toBe(200);
  });

  it("is account-scoped: user_id is an unknown query parameter", async () => {
    const account = await platform.signup();
    const target = await createKey(account, { name: "target" });
    for (const endpoint of endpoints(target.id)) {
      const response = await platform.call(endpoint.path, {
        method: endpoint.method,
        body: endpoint.body,
        key: account.key,
        query: { user_id: "u1" },
      });
      expect(response.status, `${endpoint.method} ${endpoint.path}`).toBe(400);
      expect(response.body.error).toMatchObject({
        type: "invalid_request_error",
        error_code: "unknown_query_parameter",
        details: { parameter: "user_id" },
      });
    }
    expect((await whoAmI(account.key)).status).toBe(200);
    expect((await whoAmI(target.key)).status).toBe(200);
  });

  it("lets a key that has not expired yet authenticate", async () => {
    const account = await platform.signup();
    const key = await createKey(account, { name: "soon", expires_in_days: 1 });
    await platform.database.prisma.platformApiKey.update({
      where: { id: key.id },
      data: { expiresAt: new Date(Date.now() + 60_000) },
    });
    expect((await whoAmI(key.key)).status).toBe(200);
  });
});
