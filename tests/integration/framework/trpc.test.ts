import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
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

describe("me.get", () => {
  it("returns the signed-in user with their tenants and the active one", async () => {
    const caller = createCaller(
      createInnerContext({ session: await sessionFor("admin@acme.test"), prisma: database.prisma }),
    );
    const me = await caller.me.get();
    expect(me.user.email).toBe("admin@acme.test");
    expect(me.memberships.map((m) => [m.tenant.slug, m.role])).toEqual([["acme", "admin"]]);
    expect(me.activeTenant?.slug).toBe("acme");
  });

  it("ignores an active-tenant cookie naming a tenant the user is not in", async () => {
    const caller = createCaller(
      createInnerContext({
        session: await sessionFor("member@acme.test"),
        prisma: database.prisma,
        activeTenantSlug: "globex",
      }),
    );
    expect((await caller.me.get()).activeTenant?.slug).toBe("acme");
  });

  it("refuses a caller who is not signed in", async () => {
    const caller = createCaller(createInnerContext({ session: null, prisma: database.prisma }));
    await expect(caller.me.get()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
