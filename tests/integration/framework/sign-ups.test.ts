// Open sign-up under the owner's control: a workspace made by sign-up starts with the sign-up limits;
// the owner's setting makes sign-up open, held for approval (approve creates the user and workspace,
// reject drops it) or closed (refused, OAuth too); only the owner reaches the setting.
import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { seedDemoData } from "@/prisma/seed";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
import { verifyCredentials } from "@/server/framework/auth/credentials";
import { provisionOAuthUser } from "@/server/framework/auth/oauth";
import { listMailTo } from "@/server/framework/tenancy/mail-repository";
import { oauthSignUpDecision } from "@/server/framework/tenancy/sign-ups";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.prisma);
});
afterAll(() => database.dispose());

async function callerFor(email: string | null) {
  const user = email ? await database.prisma.user.findUniqueOrThrow({ where: { email } }) : null;
  const session: Session | null = user
    ? { expires: new Date(Date.now() + 60_000).toISOString(), user: { id: user.id, email: user.email, isOwner: user.isOwner } }
    : null;
  return createCaller(createInnerContext({ session, prisma: database.prisma, baseUrl: "http://localhost:3999" }));
}

const signUpOf = (email: string, tenantName = `${email.split("@")[0]} works`) => ({ name: "New Person", email, password: "a-long-password", tenantName });

async function limitsOfTenantOf(email: string) {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
  return database.prisma.tenantLimits.findUnique({ where: { tenantId: user.memberships[0]!.tenantId } });
}

const defaults = () => ({
  runsPerMonth: env.SIGNUP_WORKSPACE_RUNS_PER_MONTH,
  costPerMonthCents: env.SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS,
  concurrentRuns: env.SIGNUP_WORKSPACE_CONCURRENT_RUNS,
  turnsPerMinutePerMember: env.SIGNUP_WORKSPACE_TURNS_PER_MINUTE,
});

describe("open sign-up", () => {
  it("is open on a new installation, and the workspace starts with the small sign-up limits", async () => {
    const owner = await callerFor("owner@inlay.test");
    expect(await owner.signUps.mode()).toEqual({ mode: "open" });
    expect(defaults()).toEqual({ runsPerMonth: 100, costPerMonthCents: 500, concurrentRuns: 2, turnsPerMinutePerMember: 10 });
    expect((await (await callerFor(null)).accounts.create(signUpOf("open@example.test"))).status).toBe("created");
    expect(await limitsOfTenantOf("open@example.test")).toMatchObject(defaults());
    // The owner sees them on the Tenants page, and changes them there.
    const listed = (await owner.tenants.listAll()).find((tenant) => tenant.name === "open works");
    expect(listed?.limits).toEqual(defaults());
  });

  it("gives a first OAuth sign-in's personal workspace the same limits", async () => {
    expect(await oauthSignUpDecision(database.prisma, { email: "oauth-open@example.test", name: "Olga" })).toBe("allow");
    await provisionOAuthUser(database.prisma, { email: "oauth-open@example.test", name: "Olga" });
    expect(await limitsOfTenantOf("oauth-open@example.test")).toMatchObject(defaults());
  });
});

describe("sign-up held for approval", () => {
  it("holds the sign-up (no user, cannot sign in) until the owner approves it; then user and workspace exist", async () => {
    const owner = await callerFor("owner@inlay.test");
    expect(await owner.signUps.setMode({ mode: "approval" })).toEqual({ mode: "approval" });
    const anonymous = await callerFor(null);
    expect(await anonymous.accounts.create(signUpOf("held@example.test", "Held Inc"))).toEqual({ status: "pending" });
    expect(await database.prisma.user.count({ where: { email: "held@example.test" } })).toBe(0);
    expect(await verifyCredentials(database.prisma, "held@example.test", "a-long-password")).toBeNull();
    // Asking twice is a conflict on the email, as is an email that has an account.
    await expect(anonymous.accounts.create(signUpOf("held@example.test"))).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "email" } });
    await expect(anonymous.accounts.create(signUpOf("admin@acme.test"))).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "email" } });

    const [held] = (await owner.signUps.list()).filter((request) => request.email === "held@example.test");
    expect(held).toMatchObject({ email: "held@example.test", name: "New Person", tenantName: "Held Inc" });
    expect(held).not.toHaveProperty("passwordHash");
    expect(await owner.signUps.approve({ id: held!.id })).toMatchObject({ email: "held@example.test", tenant: { name: "Held Inc" } });
    expect(await verifyCredentials(database.prisma, "held@example.test", "a-long-password")).not.toBeNull();
    expect(await limitsOfTenantOf("held@example.test")).toMatchObject(defaults());
    expect((await owner.signUps.list()).some((request) => request.email === "held@example.test")).toBe(false);
    const [mail] = await listMailTo(database.prisma, "held@example.test");
    expect(mail).toMatchObject({ kind: "sign_up_approved" });
    expect(mail!.text).toContain("http://localhost:3999/signin");
    // Decided once: a second approval finds nothing.
    await expect(owner.signUps.approve({ id: held!.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("drops a rejected sign-up, and holds a first OAuth sign-in too", async () => {
    const owner = await callerFor("owner@inlay.test");
    await (await callerFor(null)).accounts.create(signUpOf("rejected@example.test"));
    const rejected = (await owner.signUps.list()).find((request) => request.email === "rejected@example.test")!;
    await owner.signUps.reject({ id: rejected.id });
    expect((await owner.signUps.list()).some((request) => request.email === "rejected@example.test")).toBe(false);
    expect(await database.prisma.user.count({ where: { email: "rejected@example.test" } })).toBe(0);

    expect(await oauthSignUpDecision(database.prisma, { email: "oauth-held@example.test", name: "Hal" })).toBe("held");
    expect(await oauthSignUpDecision(database.prisma, { email: "oauth-held@example.test", name: "Hal" })).toBe("held");
    const held = (await owner.signUps.list()).filter((request) => request.email === "oauth-held@example.test");
    expect(held).toHaveLength(1);
    expect(held[0]!.tenantName).toBe("Hal's workspace");
    // An existing user still signs in.
    expect(await oauthSignUpDecision(database.prisma, { email: "admin@acme.test", name: null })).toBe("allow");
  });
});

describe("closed sign-up", () => {
  it("refuses sign-up through the API and a first OAuth sign-in, and creates nothing", async () => {
    const owner = await callerFor("owner@inlay.test");
    await owner.signUps.setMode({ mode: "closed" });
    await expect((await callerFor(null)).accounts.create(signUpOf("closed@example.test"))).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "Sign-up is closed on this installation: ask its owner or a workspace admin for an invite.",
    });
    expect(await oauthSignUpDecision(database.prisma, { email: "oauth-closed@example.test", name: null })).toBe("closed");
    expect(await database.prisma.user.count({ where: { email: { in: ["closed@example.test", "oauth-closed@example.test"] } } })).toBe(0);
    await owner.signUps.setMode({ mode: "open" });
  });

  it("is the owner's setting alone", async () => {
    const admin = await callerFor("admin@acme.test");
    await expect(admin.signUps.setMode({ mode: "closed" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(admin.signUps.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect((await callerFor("owner@inlay.test")).signUps.setMode({ mode: "sometimes" as "open" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
