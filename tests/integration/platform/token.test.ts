import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("POST /token", () => {
  it("rotates the default key: the new one works and the old one fails at once", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const { status, body } = await platform.call("/token", {
      body: { email: account.email, password: PASSWORD },
    });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["api_key", "key"]);
    expect(body.api_key).toMatch(/^sk_inlay_[0-9A-Za-z]{38}$/);
    expect(body.api_key).not.toBe(account.key);
    expect(body.key).toMatchObject({ kind: "default", name: "default", expires_at: null });
    expect(body.key.hint).toBe(`${body.api_key.slice(0, 13)}…${body.api_key.slice(-4)}`);
    expect(body.key).not.toHaveProperty("key");

    const old = await platform.call("/verify/status", { key: account.key });
    expect(old.status).toBe(401);
    expect(old.body.error.type).toBe("authentication_error");
    expect((await platform.call("/verify/status", { key: body.api_key })).status).toBe(200);

    const current = await platform.call("/keys", { key: body.api_key });
    expect(current.body.id).toBe(body.key.id);

    // Only hashes are stored, and exactly one default key is live.
    const rows = await platform.database.prisma.platformApiKey.findMany({ where: { accountId: account.id } });
    expect(JSON.stringify(rows)).not.toContain(body.api_key);
    expect(rows.find((row) => row.id === body.key.id)?.hash).toBe(sha256(body.api_key));
    expect(rows.filter((row) => row.kind === "default" && row.revokedAt === null)).toHaveLength(1);
  });

  it("mints a default key for an account that has none, and leaves named keys alone", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const named = await platform.call("/keys", { key: account.key, body: { name: "ci" } });
    expect(named.status).toBe(201);
    expect((await platform.call("/keys", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call("/keys", { key: named.body.key })).status).toBe(404);

    const { status, body } = await platform.call("/token", {
      body: { email: account.email.toUpperCase(), password: PASSWORD },
    });
    expect(status).toBe(200);
    expect((await platform.call("/keys", { key: body.api_key })).body.id).toBe(body.key.id);
    expect((await platform.call("/verify/status", { key: named.body.key })).status).toBe(200);
  });

  it("refuses a wrong password, an unknown email and a passwordless account alike", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const passwordless = await platform.signup({ password: undefined });
    const attempts = [
      { email: account.email, password: "wrong-horse" },
      { email: "nobody@example.test", password: PASSWORD },
      { email: passwordless.email, password: PASSWORD },
    ];
    const messages = new Set<string>();
    for (const attempt of attempts) {
      const { status, body } = await platform.call("/token", { body: attempt });
      expect(status, attempt.email).toBe(401);
      expect(body.error).toMatchObject({ type: "authentication_error", code: 401 });
      messages.add(body.error.message);
    }
    expect(messages.size).toBe(1);
    // Nothing was rotated by the failed attempts.
    expect((await platform.call("/verify/status", { key: account.key })).status).toBe(200);
    expect((await platform.call("/verify/status", { key: passwordless.key })).status).toBe(200);
  });

  it("validates the body, naming the field", async () => {
    const missing = await platform.call("/token", { body: { email: "a@example.test" } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/^password: /);
    const badEmail = await platform.call("/token", { body: { email: "not-an-email", password: "x" } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.message).toMatch(/^email: /);
  });

  it("rejects user_id: it is not an end-user operation", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const { status, body } = await platform.call("/token", {
      body: { email: account.email, password: PASSWORD },
      query: { user_id: "u1" },
    });
    expect(status).toBe(400);
    expect(body.error.error_code).toBe("unknown_query_parameter");
  });

  it("counts against the IP allowance", async () => {
    const limited = await startPlatform({ rateLimits: { ipPerMinute: 3 } });
    try {
      const account = await limited.signup({ password: PASSWORD });
      const statuses = [];
      let last: { status: number; body: any; headers: Headers } | undefined;
      for (let i = 0; i < 3; i++) {
        last = await limited.call("/token", { body: { email: account.email, password: PASSWORD } });
        statuses.push(last.status);
      }
      // The signup took the first of the three requests the IP may make.
      expect(statuses).toEqual([200, 200, 429]);
      expect(Object.keys(last!.body)).toEqual(["detail"]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
