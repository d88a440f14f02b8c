import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
