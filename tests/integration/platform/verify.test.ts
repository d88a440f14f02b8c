import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

async function latestLink(email: string): Promise<string> {
  const mail = platform.lastMail(email, "verify_email");
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error("no link in the verification mail");
  return link;
}

describe("email verification", () => {
  it("starts unverified, verifies through the mailed link, and the link works once", async () => {
    const account = await platform.signup();
    const before = await platform.call("/verify/status", { key: account.key });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ email: account.email, verified: false, verified_at: null, unverified_run_limit: 25 });

    const link = await latestLink(account.email);
    const confirmed = await fetch(link);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toEqual({ verified: true });

    const after = await platform.call("/verify/status", { key: account.key });
    expect(after.body.verified).toBe(true);
    expect(Date.parse(after.body.verified_at)).not.toBeNaN();

    const again = await fetch(link);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { error_code: string } }).error.error_code).toBe("verification_link_invalid");
  });

  it("resends a working link while unverified, and refuses once verified", async () => {
    const account = await platform.signup();
    const resent = await platform.call("/verify/resend", { key: account.key, method: "POST" });
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ sent: true, email: account.email });
    expect(await platform.database.prisma.platformMail.count({ where: { accountId: account.id } })).toBe(2);

    expect((await fetch(await latestLink(account.email))).status).toBe(200);
    const refused = await platform.call("/verify/resend", { key: account.key, method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.error_code).toBe("email_already_verified");
  });

  it("refuses a made-up token and calls without a key", async () => {
    expect((await platform.call("/verify/confirm", { query: { token: "made-up" } })).status).toBe(404);
    expect((await platform.call("/verify/status")).status).toBe(401);
    expect((await platform.call("/verify/resend", { method: "POST" })).status).toBe(401);
  });
});
