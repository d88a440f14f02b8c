import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_PROCESS_BINDINGS } from "@/server/platform/context";
import { signupInvite } from "@/server/platform/services/account/signup-policy";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

describe("POST /signup", () => {
  it("creates an account with strict mode on and returns its default key once", async () => {
    const { status, body, headers } = await platform.call("/signup", {
      body: { email: "Ada@Example.test", first_name: "Ada", password: "correct-horse", product: "crm" },
    });
    expect(status).toBe(201);
    expect(headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(body.account).toMatchObject({
      email: "ada@example.test",
      first_name: "Ada",
      product: "crm",
      require_end_user_id: true,
      email_verified: false,
    });
    expect(body.api_key).toMatch(/^sk_inlay_[0-9A-Za-z]{38}$/);
    expect(body.key).toMatchObject({ kind: "default", name: "default" });
    expect(body.key.hint).toBe(`${body.api_key.slice(0, 13)}…${body.api_key.slice(-4)}`);

    // Only a hash is stored.
    const rows = await platform.database.prisma.platformApiKey.findMany({ where: { accountId: body.account.id } });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(body.api_key);
    // The password is hashed too.
    const account = await platform.database.prisma.platformAccount.findUniqueOrThrow({ where: { id: body.account.id } });
    expect(account.passwordHash).toMatch(/^scrypt\$/);
  });

  it("mails a verification link, and records the mail with its token masked", async () => {
    const { body } = await platform.call("/signup", { body: { email: "mail@example.test", first_name: "M" } });
    const sent = platform.lastMail("mail@example.test", "verify_email");
    const token = new RegExp(`${platform.baseUrl}/verify/confirm\\?token=([A-Za-z0-9_-]{40,})`).exec(sent.text)?.[1];
    expect(token).toBeDefined();

    const mail = await platform.database.prisma.platformMail.findMany({ where: { accountId: body.account.id } });
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ to: "mail@example.test", kind: "verify_email" });
    expect(mail[0]!.text).toContain(`${platform.baseUrl}/verify/confirm?token=${token!.slice(0, 6)}…`);
    expect(mail[0]!.text).not.toContain(token!);
  });

  it("lets the caller turn strict mode off", async () => {
    const { body } = await platform.call("/signup", {
      body: { email: "lax@example.test", first_name: "L", require_end_user_id: false },
    });
    expect(body.account.require_end_user_id).toBe(false);
  });

  it("refuses a second account for the same email with 409", async () => {
    await platform.call("/signup", { body: { email: "twice@example.test", first_name: "T" } });
    const { status, body } = await platform.call("/signup", { body: { email: "TWICE@example.test", first_name: "T" } });
    expect(status).toBe(409);
    expect(body.error).toMatchObject({ type: "conflict_error", error_code: "email_taken" });
  });

  it("validates every field", async () => {
    const blank = await platform.call("/signup", { body: { email: "b@example.test", first_name: "  " } });
    expect(blank.status).toBe(422);
    expect(blank.body.error.message).toMatch(/first_name/);
    const short = await platform.call("/signup", { body: { email: "s@example.test", first_name: "S", password: "short" } });
    expect(short.status).toBe(422);
    expect(short.body.error.message).toMatch(/password: must be at least 8 characters/);
    const missing = await platform.call("/signup", { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/email/);
    expect(missing.body.error.message).toMatch(/first_name/);
  });

  it("is limited per IP", async () => {
    const limited = await startPlatform({ rateLimits: { signupPerMinute: 2 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await limited.call("/signup", { body: { email: `r${i}@example.test`, first_name: "R" } })).status);
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

// INLAY_SIGNUP (services/account/signup-policy.ts): the running platform's configuration is changed
// for each case and put back.
describe("POST /signup under the operator's setting", () => {
  const OPERATOR_KEY = "op_signup_test_key_0123456789";
  const withSignup = async (mode: "closed" | "invite", work: () => Promise<void>) => {
    platform.config.signup = mode;
    platform.config.payments = { ...platform.config.payments, operatorKeySha256: createHash("sha256").update(OPERATOR_KEY).digest("hex") };
    try {
      await work();
    } finally {
      platform.config.signup = undefined;
    }
  };
  const body = (email: string, extra: Record<string, unknown> = {}) => ({ email, first_name: "Gated", ...extra });

  it("closed: refused in the spec's envelope (403 signup_closed); the operator key may; a wrong one is 401", async () => {
    await withSignup("closed", async () => {
      const refused = await platform.call("/signup", { body: body("closed@example.test") });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: "permission_error", code: 403, error_code: "signup_closed", request_id: refused.headers.get("x-request-id") });
      expect(await platform.database.prisma.platformAccount.count({ where: { email: "closed@example.test" } })).toBe(0);
      const wrong = await platform.call("/signup", { body: body("closed@example.test"), headers: { "x-operator-key": "not-the-key" } });
      expect(wrong.status).toBe(401);
      const operator = await platform.call("/signup", { body: body("closed@example.test"), headers: { "x-operator-key": OPERATOR_KEY } });
      expect(operator.status).toBe(201);
      // A caller in this process (the embedded framework provisioning its own account) may too.
      const inProcess = await platform.app.fetch(
        new Request(`${platform.baseUrl}/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body("framework@example.test")) }),
        IN_PROCESS_BINDINGS,
      );
      expect(inProcess.status).toBe(201);
    });
  });

  it("invite: an operator's invite code for that email, until it expires", async () => {
    await withSignup("invite", async () => {
      const missing = await platform.call("/signup", { body: body("invited@example.test") });
      expect(missing.status).toBe(403);
      expect(missing.body.error.error_code).toBe("invite_required");
      expect((await platform.call("/operator/signup-invites", { body: { email: "invited@example.test" } })).status).toBe(401);
      const issued = await platform.call("/operator/signup-invites", { body: { email: "Invited@Example.test", expires_in_days: 2 }, headers: { "x-operator-key": OPERATOR_KEY } });
      expect(issued.status).toBe(201);
      expect(issued.body).toMatchObject({ email: "invited@example.test", invite_code: expect.stringMatching(/^inv_\d+_/) });
      const code: string = issued.body.invite_code;
      const elsewhere = await platform.call("/signup", { body: body("someone-else@example.test", { invite_code: code }) });
      expect(elsewhere.status).toBe(403);
      expect(elsewhere.body.error.error_code).toBe("invite_invalid");
      const expired = signupInvite(platform.config, "late@example.test", new Date(Date.now() - 1000));
      expect((await platform.call("/signup", { body: body("late@example.test", { invite_code: expired }) })).body.error.error_code).toBe("invite_invalid");
      const invited = await platform.call("/signup", { body: body("invited@example.test", { invite_code: code }) });
      expect(invited.status).toBe(201);
      // The address is taken now: the code is spent.
      expect((await platform.call("/signup", { body: body("invited@example.test", { invite_code: code }) })).status).toBe(409);
    });
  });
});
