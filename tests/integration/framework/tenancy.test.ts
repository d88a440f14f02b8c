import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
import { verifyCredentials } from "@/server/framework/auth/credentials";
import { provisionOAuthUser } from "@/server/framework/auth/oauth";
import { listMailTo } from "@/server/framework/tenancy/mail-repository";
import { seedDemoData } from "@/prisma/seed";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.prisma);
});
afterAll(() => database.dispose());

async function sessionFor(email: string): Promise<Session> {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email } });
  return { expires: new Date(Date.now() + 60_000).toISOString(), user: { id: user.id, email, isOwner: user.isOwner } };
}

async function callerFor(email: string | null, extra: { activeTenantSlug?: string; responseHeaders?: Headers } = {}) {
  return createCaller(
    createInnerContext({
      session: email ? await sessionFor(email) : null,
      prisma: database.prisma,
      baseUrl: "http://localhost:3999",
      ...extra,
    }),
  );
}

const tokenOf = (link: string) => link.split("/invite/")[1]!;

describe("accounts.create (sign-up)", () => {
  it("creates the user and a tenant with them as its first admin", async () => {
    const result = await (await callerFor(null)).accounts.create({
      name: "Nina New",
      email: " Nina@Example.test ",
      password: "a-long-password",
      tenantName: "Nina's Shop",
    });
    if (result.status !== "created") throw new Error("sign-up is open on a new installation");
    expect(result.user.email).toBe("nina@example.test");
    expect(result.tenant.slug).toBe("nina-s-shop");
    expect(await verifyCredentials(database.prisma, "nina@example.test", "a-long-password")).not.toBeNull();

    const me = await (await callerFor("nina@example.test")).me.get();
    expect(me.memberships.map((m) => [m.tenant.slug, m.role])).toEqual([["nina-s-shop", "admin"]]);
  });

  it("refuses a taken email on the email field, and a short password through zod", async () => {
    const caller = await callerFor(null);
    await expect(
      caller.accounts.create({ name: "X", email: "admin@acme.test", password: "a-long-password", tenantName: "Dup" }),
    ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "email" } });
    await expect(
      caller.accounts.create({ name: "X", email: "x@example.test", password: "short", tenantName: "Dup" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await database.prisma.user.count({ where: { email: "x@example.test" } })).toBe(0);
  });

  it("gives a second tenant of the same name its own slug", async () => {
    const result = await (await callerFor(null)).accounts.create({
      name: "Other",
      email: "other@example.test",
      password: "a-long-password",
      tenantName: "Nina's Shop",
    });
    expect(result.status === "created" && result.tenant.slug).toMatch(/^nina-s-shop-[0-9a-f]{6}$/);
  });
});

describe("invites", () => {
  it("an admin invites by email; the mail is recorded; the invitee creates an account and joins once", async () => {
    const admin = await callerFor("admin@acme.test");
    const { invite, link } = await admin.invites.create({ email: "Newbie@Example.test", role: "member" });
    expect(invite).toMatchObject({ email: "newbie@example.test", role: "member", status: "open" });
    expect(link).toMatch(/^http:\/\/localhost:3999\/invite\/[A-Za-z0-9_-]{43}$/);
    const mail = await listMailTo(database.prisma, "newbie@example.test");
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain(link);
    // Only the hash is stored.
    const row = await database.prisma.tenantInvite.findUniqueOrThrow({ where: { id: invite.id } });
    expect(row.tokenHash).not.toContain(tokenOf(link));

    const anonymous = await callerFor(null);
    expect(await anonymous.invites.get({ token: tokenOf(link) })).toMatchObject({
      tenant: { slug: "acme" },
      email: "newbie@example.test",
      status: "open",
      accountExists: false,
    });
    const accepted = await anonymous.invites.accept({
      token: tokenOf(link),
      account: { name: "Newbie", password: "a-long-password" },
    });
    expect(accepted).toMatchObject({ tenant: { slug: "acme" }, role: "member", createdAccount: true });
    expect(await verifyCredentials(database.prisma, "newbie@example.test", "a-long-password")).not.toBeNull();
    expect((await (await callerFor("newbie@example.test")).me.get()).activeTenant?.slug).toBe("acme");

    await expect(
      anonymous.invites.accept({ token: tokenOf(link), account: { name: "Again", password: "a-long-password" } }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: "This invite has already been used." });
    expect((await admin.invites.list()).map((i) => i.id)).not.toContain(invite.id);
  });

  it("an existing user accepts while signed in, and only as the invited email", async () => {
    const globexAdmin = await callerFor("admin@globex.test");
    const { link } = await globexAdmin.invites.create({ email: "member@acme.test", role: "admin" });

    await expect((await callerFor("admin@acme.test")).invites.accept({ token: tokenOf(link) })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect((await callerFor(null)).invites.accept({ token: tokenOf(link), account: { name: "M", password: "a-long-password" } })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const accepted = await (await callerFor("member@acme.test")).invites.accept({ token: tokenOf(link) });
    expect(accepted).toMatchObject({ tenant: { slug: "globex" }, role: "admin", createdAccount: false });
  });

  it("refuses a revoked or expired invite and an unknown token", async () => {
    const admin = await callerFor("admin@acme.test");
    const { invite, link } = await admin.invites.create({ email: "revoked@example.test", role: "member" });
    await admin.invites.revoke({ id: invite.id });
    const account = { name: "R", password: "a-long-password" };
    await expect((await callerFor(null)).invites.accept({ token: tokenOf(link), account })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "This invite was revoked.",
    });

    const second = await admin.invites.create({ email: "late@example.test", role: "member" });
    await database.prisma.tenantInvite.update({ where: { id: second.invite.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect((await callerFor(null)).invites.accept({ token: tokenOf(second.link), account })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "This invite has expired: ask for a new one.",
    });
    await expect((await callerFor(null)).invites.get({ token: "x".repeat(43) })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses to invite someone who is already a member", async () => {
    await expect((await callerFor("admin@acme.test")).invites.create({ email: "member@acme.test", role: "member" })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "email" },
    });
  });
});

describe("tenants.switch", () => {
  it("sets the active-tenant cookie for a tenant the user belongs to; the next call works in it", async () => {
    // member@acme.test joined globex as admin above.
    const responseHeaders = new Headers();
    const caller = await callerFor("member@acme.test", { responseHeaders });
    expect((await caller.tenants.list()).memberships.map((m) => m.tenant.slug)).toEqual(["acme", "globex"]);
    await caller.tenants.switch({ slug: "globex" });
    expect(responseHeaders.get("set-cookie")).toMatch(/^inlay_tenant=globex; Path=\/;.*HttpOnly/);

    const inGlobex = await callerFor("member@acme.test", { activeTenantSlug: "globex" });
    expect((await inGlobex.me.get()).activeTenant?.slug).toBe("globex");
    // Admin in globex, member in acme: admin procedures follow the active tenant.
    expect((await inGlobex.members.list()).map((m) => m.email)).toContain("admin@globex.test");
    await expect((await callerFor("member@acme.test", { activeTenantSlug: "acme" })).members.list()).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it("refuses a tenant the user does not belong to as NOT_FOUND, setting no cookie", async () => {
    const responseHeaders = new Headers();
    const caller = await callerFor("admin@acme.test", { responseHeaders });
    await expect(caller.tenants.switch({ slug: "globex" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.tenants.switch({ slug: "no-such-tenant" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(responseHeaders.get("set-cookie")).toBeNull();
  });
});

describe("tenant isolation and roles", () => {
  it("a globex admin cannot see or touch acme's members or invites", async () => {
    const acmeAdmin = await callerFor("admin@acme.test");
    const acmeMembers = await acmeAdmin.members.list();
    const acmeMember = acmeMembers.find((m) => m.email === "member@acme.test")!;
    const { invite } = await acmeAdmin.invites.create({ email: "isolated@example.test", role: "member" });

    const globex = await callerFor("admin@globex.test");
    expect((await globex.members.list()).map((m) => m.email)).not.toContain("admin@acme.test");
    expect((await globex.invites.list()).map((i) => i.id)).not.toContain(invite.id);
    await expect(globex.members.changeRole({ id: acmeMember.id, role: "admin" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.members.remove({ id: acmeMember.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.invites.revoke({ id: invite.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.limits.setMemberCap({ membershipId: acmeMember.id, cap: null })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // A cookie naming acme does not help: globex's admin is not in acme.
    const sneaky = await callerFor("admin@globex.test", { activeTenantSlug: "acme" });
    await expect(sneaky.members.remove({ id: acmeMember.id })).rejects.toMatchObject({ code: "NOT_FOUND" });

    expect((await acmeAdmin.members.list()).find((m) => m.id === acmeMember.id)?.role).toBe("member");
    expect((await acmeAdmin.invites.list()).map((i) => i.id)).toContain(invite.id);
  });

  it("a member cannot use admin procedures, and only the owner can use owner procedures", async () => {
    const member = await callerFor("member@acme.test", { activeTenantSlug: "acme" });
    await expect(member.members.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.invites.create({ email: "a@example.test", role: "admin" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.limits.get()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.limits.setDefaultCap({ runsPerMonth: 1, costPerMonthCents: null })).rejects.toMatchObject({ code: "FORBIDDEN" });

    const admin = await callerFor("admin@acme.test");
    await expect(admin.tenants.listAll()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(admin.tenants.create({ name: "Mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const acme = (await admin.tenants.list()).activeTenant!;
    await expect(
      admin.tenants.setLimits({
        tenantId: acme.id,
        limits: { runsPerMonth: 1, costPerMonthCents: null, concurrentRuns: null, turnsPerMinutePerMember: null },
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect((await callerFor(null)).members.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    const owner = await callerFor("owner@inlay.test");
    const created = await owner.tenants.create({ name: "Initech", adminEmail: "boss@initech.test" });
    expect(created.inviteLink).toMatch(/\/invite\//);
    expect((await owner.tenants.listAll()).map((t) => t.slug)).toContain("initech");
    expect(await listMailTo(database.prisma, "boss@initech.test")).toHaveLength(1);
  });

  it("a tenant keeps its last admin; roles change at once", async () => {
    const admin = await callerFor("admin@globex.test");
    const members = await admin.members.list();
    const globexAdmin = members.find((m) => m.email === "admin@globex.test")!;
    const other = members.find((m) => m.email === "member@acme.test")!;
    await admin.members.changeRole({ id: other.id, role: "member" });
    await expect(admin.members.changeRole({ id: globexAdmin.id, role: "member" })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(admin.members.remove({ id: globexAdmin.id })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect((await callerFor("member@acme.test", { activeTenantSlug: "globex" })).members.list()).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it("a removed member loses access at once, whatever their session and cookie say", async () => {
    const admin = await callerFor("admin@acme.test");
    const { link } = await admin.invites.create({ email: "leaver@example.test", role: "member" });
    await (await callerFor(null)).invites.accept({ token: tokenOf(link), account: { name: "L", password: "a-long-password" } });
    const leaver = await callerFor("leaver@example.test", { activeTenantSlug: "acme" });
    expect((await leaver.limits.mine()).member.runs.used).toBe(0);

    const membership = (await admin.members.list()).find((m) => m.email === "leaver@example.test")!;
    await admin.members.remove({ id: membership.id });
    await expect(leaver.limits.mine()).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await leaver.me.get()).memberships).toEqual([]);
  });
});

describe("OAuth provisioning", () => {
  it("gives a new user without an invite a personal tenant, and an invited one none", async () => {
    const solo = await provisionOAuthUser(database.prisma, { email: "Solo@Example.test", name: "Solo" });
    const soloMemberships = await database.prisma.membership.findMany({ where: { userId: solo.id }, include: { tenant: true } });
    expect(soloMemberships.map((m) => [m.tenant.name, m.role])).toEqual([["Solo's workspace", "admin"]]);
    expect((await provisionOAuthUser(database.prisma, { email: "solo@example.test", name: "Solo" })).id).toBe(solo.id);

    await (await callerFor("admin@acme.test")).invites.create({ email: "invited@example.test", role: "member" });
    const invited = await provisionOAuthUser(database.prisma, { email: "invited@example.test", name: "Invited" });
    expect(await database.prisma.membership.count({ where: { userId: invited.id } })).toBe(0);
  });
});
