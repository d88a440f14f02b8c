import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function login(account: { email: string }, password = PASSWORD, extra: Record<string, unknown> = {}) {
  return platform.call("/account/sessions", { body: { email: account.email, password, ...extra } });
}

async function signIn(account: Account) {
  const { status, body } = await login(account);
  if (status !== 201) throw new Error(`POST /account/sessions: ${status} ${JSON.stringify(body)}`);
  return body as { access_token: string; refresh_token: string; session_id: number };
}

const whoAmI = (token: string) => platform.call("/verify/status", { key: token });

describe("POST /account/sessions", () => {
  it("signs in with email and password: a pair whose access token works wherever a key does", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const { status, body } = await login({ email: account.email.toUpperCase() });
    expect(status).toBe(201);
    expect(body).toMatchObject({ account_id: account.id, role: "owner", token_type: "bearer", expires_in: 900 });
    expect(body.access_token).toMatch(/^inlay_sa_[A-Za-z0-9_-]{43}$/);
    expect(body.refresh_token).toMatch(/^inlay_sr_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(body.refresh_token_expires_at)).toBeGreaterThan(Date.parse(body.access_token_expires_at));

    const status200 = await whoAmI(body.access_token);
    expect(status200.status).toBe(200);
    expect(status200.body.email).toBe(account.email);
    const agent = await platform.call("/agents", {
      key: body.access_token,
      query: { user_id: "u1" },
      body: { name: "Via session", instructions: "Hi." },
    });
    expect(agent.status).toBe(201);
    const viaKey = await platform.call(`/agents/${agent.body.id}`, { key: account.key, query: { user_id: "u1" } });
    expect(viaKey.body.name).toBe("Via session");
  });

  it("answers an unknown email, a wrong password and a passwordless account alike", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const passwordless = await platform.signup({ password: undefined });
    const answers = await Promise.all([
      login(account, "wrong-password"),
      login({ email: "nobody-here@example.test" }),
      login(passwordless, PASSWORD),
    ]);
    for (const { status, body } of answers) {
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ type: "authentication_error", message: "incorrect email or password" });
    }
  });

  it("names the field of a malformed request", async () => {
    const { status, body } = await platform.call("/account/sessions", { body: { email: "not-an-email", password: "x" } });
    expect(status).toBe(422);
    expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["email"]);
  });

  it("stores only the tokens' hashes", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    const rows = await platform.database.prisma.platformSession.findMany({ where: { personId: account.id } });
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(pair.access_token);
    expect(dump).not.toContain(pair.refresh_token);
    expect(rows.find((row) => row.id === pair.session_id)).toMatchObject({
      accessHash: sha256(pair.access_token),
      refreshHash: sha256(pair.refresh_token),
    });
  });

  it("limits password attempts per IP", async () => {
    const limited = await startPlatform({ rateLimits: { loginPerMinute: 2 } });
    try {
      const account = await limited.signup({ password: PASSWORD });
      const attempt = () => limited.call("/account/sessions", { body: { email: account.email, password: "wrong-guess" } });
      expect((await attempt()).status).toBe(401);
      expect((await attempt()).status).toBe(401);
      const third = await attempt();
      expect(third.status).toBe(429);
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
    // Starts a second platform of its own.
  }, 120_000);
});

describe("expiry and refresh", () => {
  it("an expired access token is refused; its refresh token gives a new pair, once", async () => {
    const short = await startPlatform({ sessions: { accessTtlMs: 1 } });
    try {
      const account = await short.signup({ password: PASSWORD });
      const { body: pair } = await short.call("/account/sessions", { body: { email: account.email, password: PASSWORD } });
      const expired = await short.call("/verify/status", { key: pair.access_token });
      expect(expired.status).toBe(401);
      expect(expired.body.error.type).toBe("authentication_error");

      const refreshed = await short.call("/account/sessions/refresh", { body: { refresh_token: pair.refresh_token } });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.session_id).toBe(pair.session_id);
      expect(refreshed.body.refresh_token).not.toBe(pair.refresh_token);
      expect(refreshed.body.refresh_token_expires_at).toBe(pair.refresh_token_expires_at);

      const again = await short.call("/account/sessions/refresh", { body: { refresh_token: pair.refresh_token } });
      expect(again.status).toBe(401);
    } finally {
      await short.close();
    }
    // Starts a second platform of its own.
  }, 120_000);

  it("a refresh retires the previous access token", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    expect((await whoAmI(pair.access_token)).status).toBe(200);
    const { status, body } = await platform.call("/account/sessions/refresh", { body: { refresh_token: pair.refresh_token } });
    expect(status).toBe(200);
    expect((await whoAmI(pair.access_token)).status).toBe(401);
    expect((await whoAmI(body.access_token)).status).toBe(200);
  });

  it("refuses a made-up refresh token", async () => {
    const { status } = await platform.call("/account/sessions/refresh", { body: { refresh_token: `inlay_sr_${"A".repeat(43)}` } });
    expect(status).toBe(401);
  });
});

describe("POST /account/sessions/revoke", () => {
  it("ends every session of the person at once; keys keep working", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const [first, second] = [await signIn(account), await signIn(account)];
    expect((await whoAmI(second.access_token)).status).toBe(200);

    const { status, body } = await platform.call("/account/sessions/revoke", { key: first.access_token, method: "POST" });
    expect(status).toBe(200);
    expect(body).toEqual({ revoked: 2 });
    expect((await whoAmI(first.access_token)).status).toBe(401);
    expect((await whoAmI(second.access_token)).status).toBe(401);
    const refresh = await platform.call("/account/sessions/refresh", { body: { refresh_token: second.refresh_token } });
    expect(refresh.status).toBe(401);
    expect((await whoAmI(account.key)).status).toBe(200);
  });

  it("answers 403 permission_error to an API key, and ends nothing", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    const { status, body } = await platform.call("/account/sessions/revoke", { key: account.key, method: "POST" });
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ type: "permission_error", error_code: "session_required" });
    expect((await whoAmI(pair.access_token)).status).toBe(200);
  });

  it("leaves another account's sessions alone", async () => {
    const [mine, theirs] = [await platform.signup({ password: PASSWORD }), await platform.signup({ password: PASSWORD })];
    const [myPair, theirPair] = [await signIn(mine), await signIn(theirs)];
    expect((await platform.call("/account/sessions/revoke", { key: myPair.access_token, method: "POST" })).status).toBe(200);
    expect((await whoAmI(theirPair.access_token)).status).toBe(200);
  });

  it("needs a credential", async () => {
    expect((await platform.call("/account/sessions/revoke", { method: "POST" })).status).toBe(401);
  });
});

describe("POST /account/password", () => {
  it("changes the password, ends every session, answers a fresh pair, and keeps keys", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const named = await platform.call("/keys", { key: account.key, body: { name: "ci" } });
    const [old, other] = [await signIn(account), await signIn(account)];

    const { status, body } = await platform.call("/account/password", {
      key: old.access_token,
      body: { current_password: PASSWORD, new_password: "battery-staple" },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ account_id: account.id, role: "owner", token_type: "bearer" });
    expect((await whoAmI(old.access_token)).status).toBe(401);
    expect((await whoAmI(other.access_token)).status).toBe(401);
    expect((await whoAmI(body.access_token)).status).toBe(200);
    expect((await whoAmI(account.key)).status).toBe(200);
    expect((await whoAmI(named.body.key)).status).toBe(200);

    expect((await login(account, PASSWORD)).status).toBe(401);
    expect((await login(account, "battery-staple")).status).toBe(201);
    expect((await platform.call("/token", { body: { email: account.email, password: "battery-staple" } })).status).toBe(200);
  });

  it("works with an API key too, for the key's account holder", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    const { status, body } = await platform.call("/account/password", {
      key: account.key,
      body: { current_password: PASSWORD, new_password: "another-secret" },
    });
    expect(status).toBe(200);
    expect((await whoAmI(pair.access_token)).status).toBe(401);
    expect((await whoAmI(body.access_token)).status).toBe(200);
  });

  it("refuses a short new password with 422 naming new_password", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const { status, body } = await platform.call("/account/password", {
      key: account.key,
      body: { current_password: PASSWORD, new_password: "short" },
    });
    expect(status).toBe(422);
    expect(body.error.type).toBe("validation_error");
    expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["new_password"]);
    expect((await login(account)).status).toBe(201);
  });

  it("refuses a wrong current password with 403 incorrect_password, changing nothing", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    const { status, body } = await platform.call("/account/password", {
      key: pair.access_token,
      body: { current_password: "not-my-password", new_password: "battery-staple" },
    });
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ type: "permission_error", error_code: "incorrect_password" });
    expect(body.error.details.fields[0].field).toBe("current_password");
    expect((await whoAmI(pair.access_token)).status).toBe(200);
    expect((await login(account)).status).toBe(201);
  });

  it("stores the new password hashed", async () => {
    const account = await platform.signup({ password: PASSWORD });
    await platform.call("/account/password", { key: account.key, body: { current_password: PASSWORD, new_password: "plain-text-check" } });
    const row = await platform.database.prisma.platformAccount.findUnique({ where: { id: account.id } });
    expect(row?.passwordHash).toMatch(/^scrypt\$/);
    expect(row?.passwordHash).not.toContain("plain-text-check");
  });
});

describe("DELETE /account", () => {
  it("takes the account's sessions with it", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const pair = await signIn(account);
    expect((await platform.call("/account", { key: pair.access_token, method: "DELETE" })).status).toBe(204);
    expect((await whoAmI(pair.access_token)).status).toBe(401);
    expect(await platform.database.prisma.platformSession.count({ where: { personId: account.id } })).toBe(0);
  });
});
