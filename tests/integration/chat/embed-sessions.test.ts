// Minting from the vendor's backend: tenant admins' embed secrets (embedSecrets.*, stored hashed) and
// POST /api/embed/sessions (bad and revoked secrets, another tenant's agent, the token's lifetime and
// origin, and the vendor's users provisioned as members under the tenant's caps).
import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/embed/sessions/route";
import { seedDemoData } from "@/prisma/seed";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
import { setProcessDatabase } from "@/server/shared/db";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { verifyEmbedToken } from "@/server/framework/embed/tokens";
import { LimitExceededError } from "@/server/framework/tenancy/errors";
import { admitRun, setDefaultMemberCap } from "@/server/framework/tenancy/limits";
import { createInlayServer, InlaySessionError } from "@inlay/server";
import { chatStorageScope } from "@/server/framework/chat/storage-scope";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
let acmeId: string;
let globexId: string;
const SHOP = "https://shop.acme.test";

async function adminOf(email: string) {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email } });
  const session: Session = { expires: new Date(Date.now() + 60_000).toISOString(), user: { id: user.id, email, isOwner: user.isOwner } };
  return createCaller(createInnerContext({ session, prisma: database.prisma }));
}

function mint(secret: string | undefined, body: unknown): Promise<Response> {
  return POST(
    new Request("http://127.0.0.1:3000/api/embed/sessions", {
      method: "POST",
      headers: { "content-type": "application/json", ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
      body: JSON.stringify(body),
    }),
  );
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { message: string; code?: string; field?: string } }).error;

let acmeSecret: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.prisma);
  setProcessDatabase(database);
  acmeId = (await database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  globexId = (await database.prisma.tenant.findUniqueOrThrow({ where: { slug: "globex" } })).id;
  await setAllowedOrigins(database.prisma, acmeId, [SHOP]);
  await setAllowedOrigins(database.prisma, globexId, ["https://globex.test"]);
  acmeSecret = (await (await adminOf("admin@acme.test")).embedSecrets.create({ name: "Shop backend" })).secret;
});
afterAll(() => database.dispose());

describe("embedSecrets (tenant admins)", () => {
  it("shows the secret once and stores only its hash", async () => {
    const admin = await adminOf("admin@acme.test");
    const created = await admin.embedSecrets.create({ name: "Staging" });
    expect(created.secret).toMatch(/^inlay_es_[A-Za-z0-9_-]{43}$/);
    expect(created.secret.startsWith(created.prefix)).toBe(true);
    const row = await database.prisma.tenantEmbedSecret.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(15));
    const listed = await admin.embedSecrets.list();
    expect(listed.map((each) => each.name)).toContain("Staging");
    expect(JSON.stringify(listed)).not.toContain(created.secret);
  });

  it("are for admins only, and another tenant's secret is not found", async () => {
    const member = await adminOf("member@acme.test");
    await expect(member.embedSecrets.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.embedSecrets.create({ name: "x" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const acmeOne = (await (await adminOf("admin@acme.test")).embedSecrets.list())[0]!;
    await expect((await adminOf("admin@globex.test")).embedSecrets.revoke({ id: acmeOne.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect((await adminOf("admin@acme.test")).embedSecrets.create({ name: " " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("rotation makes a new secret and the old one stops working; revoking is refused next use", async () => {
    const admin = await adminOf("admin@acme.test");
    const old = await admin.embedSecrets.create({ name: "Rotating" });
    expect((await mint(old.secret, { user_id: "rot-1", email: "rot@shop.test" })).status).toBe(200);
    expect((await admin.embedSecrets.list()).find((each) => each.id === old.id)?.lastUsedAt).toBeInstanceOf(Date);
    const { created, revoked } = await admin.embedSecrets.rotate({ id: old.id });
    expect(created.name).toBe("Rotating");
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const refused = await mint(old.secret, { user_id: "rot-1", email: "rot@shop.test" });
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).code).toBe("invalid_secret");
    expect((await mint(created.secret, { user_id: "rot-1", email: "rot@shop.test" })).status).toBe(200);
    await admin.embedSecrets.revoke({ id: created.id });
    expect((await mint(created.secret, { user_id: "rot-1", email: "rot@shop.test" })).status).toBe(401);
    await expect(admin.embedSecrets.revoke({ id: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("POST /api/embed/sessions", () => {
  it("refuses a missing, malformed or unknown secret with 401", async () => {
    const body = { user_id: "u-1", email: "u1@shop.test" };
    expect((await mint(undefined, body)).status).toBe(401);
    expect((await mint("not-a-secret", body)).status).toBe(401);
    expect((await mint(`${acmeSecret.slice(0, -2)}AA`, body)).status).toBe(401);
    expect(await database.prisma.tenantEmbedUser.count({ where: { externalId: "u-1" } })).toBe(0);
  });

  it("names the field of a bad body (422)", async () => {
    for (const [body, field] of [
      [{ email: "a@shop.test" }, "user_id"],
      [{ user_id: "u", email: "not-an-email" }, "email"],
      [{ user_id: "u", email: "a@shop.test", ttl_seconds: 3600 }, "ttl_seconds"],
      [{ user_id: "u", email: "a@shop.test", origin: "javascript:alert(1)" }, "origin"],
    ] as const) {
      const response = await mint(acmeSecret, body);
      expect(response.status).toBe(422);
      expect((await errorOf(response)).field).toBe(field);
    }
    const notJson = await POST(
      new Request("http://127.0.0.1:3000/api/embed/sessions", { method: "POST", headers: { authorization: `Bearer ${acmeSecret}` }, body: "{" }),
    );
    expect(notJson.status).toBe(422);
  });

  it("mints a token of at most ten minutes for the tenant's one allowed origin, or the one asked", async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await mint(acmeSecret, { user_id: "life-1", email: "life@shop.test", name: "Liv" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token: string; expires_at: string; tenant: string; origin: string };
    expect(body.tenant).toBe("acme");
    expect(body.origin).toBe(SHOP);
    const expiresIn = new Date(body.expires_at).getTime() / 1000 - before;
    expect(expiresIn).toBeGreaterThanOrEqual(599);
    expect(expiresIn).toBeLessThanOrEqual(601);
    const claims = await verifyEmbedToken(body.token, { origin: SHOP });
    expect(claims.tenantId).toBe(acmeId);

    const short = (await (await mint(acmeSecret, { user_id: "life-1", email: "life@shop.test", ttl_seconds: 60 })).json()) as { token: string };
    const { iat, exp } = JSON.parse(Buffer.from(short.token.split(".")[1]!, "base64url").toString()) as { iat: number; exp: number };
    expect(exp - iat).toBe(60);

    // Not an allowed origin: 403; with two allowed, the origin must be named.
    const foreign = await mint(acmeSecret, { user_id: "life-1", email: "life@shop.test", origin: "https://evil.test" });
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toMatchObject({ code: "origin_not_allowed", field: "origin" });
    await setAllowedOrigins(database.prisma, acmeId, [SHOP, "http://127.0.0.1:4000"]);
    const ambiguous = await mint(acmeSecret, { user_id: "life-1", email: "life@shop.test" });
    expect(ambiguous.status).toBe(422);
    expect((await errorOf(ambiguous)).field).toBe("origin");
    const named = (await (await mint(acmeSecret, { user_id: "life-1", email: "life@shop.test", origin: "http://127.0.0.1:4000/cart" })).json()) as { origin: string };
    expect(named.origin).toBe("http://127.0.0.1:4000");
    await setAllowedOrigins(database.prisma, acmeId, [SHOP]);
  });

  it("opens only the tenant's own agents: another tenant's or an unknown one is 404", async () => {
    const acmeAgent = await database.prisma.tenantAgent.findFirstOrThrow({ where: { tenantId: acmeId, ownerUserId: null } });
    const globexAgent = await database.prisma.tenantAgent.create({ data: { tenantId: globexId, name: "Globex bot" } });
    const ok = await mint(acmeSecret, { user_id: "ag-1", email: "ag@shop.test", agent: acmeAgent.name });
    expect(ok.status).toBe(200);
    const { token } = (await ok.json()) as { token: string };
    expect((await verifyEmbedToken(token)).agent).toBe(acmeAgent.name);
    for (const agent of [globexAgent.name, globexAgent.id, "No such agent"]) {
      const response = await mint(acmeSecret, { user_id: "ag-1", email: "ag@shop.test", agent });
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toMatchObject({ code: "agent_not_found", field: "agent" });
    }
    // A member's personal agent is not the tenant's either.
    const member = await database.prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const personal = await database.prisma.tenantAgent.create({ data: { tenantId: acmeId, ownerUserId: member.id, name: "Max's own" } });
    expect((await mint(acmeSecret, { user_id: "ag-1", email: "ag@shop.test", agent: personal.name })).status).toBe(404);
  });
});

const userOf = async (tenantId: string, externalId: string) =>
  database.prisma.tenantEmbedUser.findUniqueOrThrow({ where: { tenantId_externalId: { tenantId, externalId } }, include: { user: true } });

describe("the vendor's users", () => {
  it("are provisioned once per tenant and vendor id, as members, never onto an existing account by email", async () => {
    const first = await mint(acmeSecret, { user_id: "cust-42", email: "admin@acme.test", name: "Cass Customer" });
    expect(first.status).toBe(200);
    const claims = await verifyEmbedToken(((await first.json()) as { token: string }).token);
    const linked = await userOf(acmeId, "cust-42");
    expect(claims.userId).toBe(linked.userId);
    // The address belongs to acme's admin: recorded on the link, the admin's account untouched.
    const admin = await database.prisma.user.findUniqueOrThrow({ where: { email: "admin@acme.test" } });
    expect(linked.userId).not.toBe(admin.id);
    expect(linked.email).toBe("admin@acme.test");
    expect(linked.user.email).toMatch(/@users\.embed\.invalid$/);
    expect(linked.user.passwordHash).toBeNull();
    expect(linked.user.name).toBe("Cass Customer");
    const membership = await database.prisma.membership.findUniqueOrThrow({ where: { tenantId_userId: { tenantId: acmeId, userId: linked.userId } } });
    expect(membership.role).toBe("member");

    // The same vendor id again: the same user, with the vendor's latest name.
    const again = await mint(acmeSecret, { user_id: "cust-42", email: "cass@shop.test", name: "Cass C." });
    expect((await verifyEmbedToken(((await again.json()) as { token: string }).token)).userId).toBe(linked.userId);
    expect((await userOf(acmeId, "cust-42")).user.name).toBe("Cass C.");
    // Admins know the person by the vendor's address and name, not the placeholder.
    const listed = (await (await adminOf("admin@acme.test")).members.list()).find((each) => each.userId === linked.userId);
    expect(listed).toMatchObject({ email: "cass@shop.test", name: "Cass C.", embedUserId: "cust-42" });
    expect(await database.prisma.tenantEmbedUser.count({ where: { externalId: "cust-42" } })).toBe(1);

    // The same vendor id in another tenant is another person.
    const globexSecret = (await (await adminOf("admin@globex.test")).embedSecrets.create({ name: "Globex backend" })).secret;
    expect((await mint(globexSecret, { user_id: "cust-42", email: "cass@shop.test" })).status).toBe(200);
    expect((await userOf(globexId, "cust-42")).userId).not.toBe(linked.userId);
  });

  it("two first mints at once make one member", async () => {
    const responses = await Promise.all([1, 2, 3].map(() => mint(acmeSecret, { user_id: "race-1", email: "race@shop.test" })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const ids = await Promise.all(responses.map(async (response) => (await verifyEmbedToken(((await response.json()) as { token: string }).token)).userId));
    expect(new Set(ids).size).toBe(1);
  });

  it("are under the tenant's member caps like any member, and a removed one is not brought back", async () => {
    await setDefaultMemberCap(database.prisma, acmeId, { runsPerMonth: 1, costPerMonthCents: null });
    for (const externalId of ["cap-1", "cap-2"]) {
      expect((await mint(acmeSecret, { user_id: externalId, email: `${externalId}@shop.test` })).status).toBe(200);
      const { userId } = await userOf(acmeId, externalId);
      await admitRun(database.prisma, { tenantId: acmeId, userId });
      const refused = await admitRun(database.prisma, { tenantId: acmeId, userId }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(LimitExceededError);
      expect((refused as LimitExceededError).details).toMatchObject({ limit: "member_runs", max: 1 });
    }
    await setDefaultMemberCap(database.prisma, acmeId, { runsPerMonth: null, costPerMonthCents: null });

    const { userId } = await userOf(acmeId, "cap-1");
    await database.prisma.membership.delete({ where: { tenantId_userId: { tenantId: acmeId, userId } } });
    const removed = await mint(acmeSecret, { user_id: "cap-1", email: "cap-1@shop.test" });
    expect(removed.status).toBe(403);
    expect((await errorOf(removed)).code).toBe("member_removed");
  });
});

describe("@inlay/server's sessions.create (the same route, as a vendor's backend calls it)", () => {
  // The SDK's requests go to the route in-process, as they would over the network.
  const viaRoute = (input: RequestInfo | URL, init?: RequestInit) => POST(new Request(input, init));

  it("mints a session for the vendor's user: the token names the user's member, the origin and the agent", async () => {
    const inlay = createInlayServer({ url: "http://127.0.0.1:3000/", secret: acmeSecret, fetch: viaRoute });
    const session = await inlay.sessions.create({ userId: "sdk-1", email: "Sdk@Shop.test", name: "Sam", agent: "Acme assistant", origin: SHOP, ttlSeconds: 120 });
    expect(session).toMatchObject({ tenant: "acme", origin: SHOP, agent: "Acme assistant" });
    const lifetime = Date.parse(session.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(100_000);
    expect(lifetime).toBeLessThanOrEqual(120_000);
    const claims = await verifyEmbedToken(session.token, { origin: SHOP });
    expect(claims.userId).toBe((await userOf(acmeId, "sdk-1")).userId);
    expect(claims.agent).toBe("Acme assistant");
    // The browser keeps the user's conversations under an opaque scope of (tenant, user).
    expect(session.storage_scope).toBe(chatStorageScope(acmeId, claims.userId));
  });

  it("throws InlaySessionError with Inlay's code, status and the field in the SDK's own names", async () => {
    const inlay = createInlayServer({ url: "http://127.0.0.1:3000", secret: acmeSecret, fetch: viaRoute });
    const refusal = (input: Parameters<typeof inlay.sessions.create>[0]) => inlay.sessions.create(input).catch((error: unknown) => error);
    expect(await refusal({ userId: "sdk-2", email: "sdk2@shop.test", origin: "https://elsewhere.test" })).toMatchObject({
      status: 403,
      code: "origin_not_allowed",
      field: "origin",
    });
    expect(await refusal({ userId: " ", email: "sdk2@shop.test" })).toMatchObject({ status: 422, code: "invalid_body", field: "userId" });
    const wrongSecret = createInlayServer({ url: "http://127.0.0.1:3000", secret: "inlay_es_wrong", fetch: viaRoute });
    const refused = await wrongSecret.sessions.create({ userId: "sdk-2", email: "sdk2@shop.test" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InlaySessionError);
    expect(refused).toMatchObject({ status: 401, code: "invalid_secret" });
    // Made at module level before the environment is there: said when used, naming what is missing.
    const unset = createInlayServer({ url: "", secret: acmeSecret, fetch: viaRoute });
    await expect(unset.sessions.create({ userId: "sdk-2", email: "sdk2@shop.test" })).rejects.toThrow(/url \(Inlay's origin\) is missing/);
  });
});
