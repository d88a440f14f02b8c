// Embedding: a tenant's allowed origins, minting tokens only for them, the embed page's
// frame-ancestors, and the chat context an embed token opens (tenant, member, origin, agent).
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "@inlay/core/platform-client";
import { seedDemoData } from "@/prisma/seed";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, resolveFrameworkChatContext, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { ChatRefusal } from "@/server/framework/chat/context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { EmbedMintRefused, mintEmbedToken } from "@/server/framework/embed/mint";
import { embedFraming, embedPageSettings, getAllowedOrigins, setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { getToolViews, setToolViews } from "@/server/framework/embed/tool-views";
import { setAppOffered } from "@/server/framework/tenancy/apps-repository";
import { verifyConnectionState } from "@/server/framework/tenancy/connection-state";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
let acmeId: string;
let memberId: string;
const bound: { tenantId: string; userId: string }[] = [];
const connects: { app: string; redirectUri: string }[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.prisma);
  setProcessDatabase(database);
  acmeId = (await database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  memberId = (await database.prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } })).id;
  setPlatformClientBinding(async (_prisma, member) => {
    bound.push({ tenantId: member.tenant.id, userId: member.userId });
    // The resolver's own work is under test, not the platform's: only the connect call is answered.
    return {
      apps: {
        connect: async (app: string, params: { redirect_uri: string }) => {
          connects.push({ app, redirectUri: params.redirect_uri });
          return { authorization_url: `https://oauth.test/authorize?app=${app}`, connection_id: "conn_1" };
        },
        complete: async (app: string, params: { connection_id: string }) => ({ status: "active", app, connection: params.connection_id }),
      },
    } as unknown as PlatformClient;
  });
});
afterAll(() => database.dispose());

describe("tool views", () => {
  const views = { calculator: { title: "Sum {input.expression}", fields: [{ label: "Result", value: "output.result" }], allowLabel: "Work it out" } };

  it("are kept per tenant and handed to that tenant's embed page only", async () => {
    const globexId = (await database.prisma.tenant.findUniqueOrThrow({ where: { slug: "globex" } })).id;
    expect(await setToolViews(database.prisma, acmeId, views)).toEqual(views);
    expect(await getToolViews(database.prisma, acmeId)).toEqual(views);
    await setAllowedOrigins(database.prisma, acmeId, ["https://shop.acme.test"]);
    expect(await embedPageSettings(database.prisma, "acme", "https://shop.acme.test")).toEqual({ allowed: true, toolViews: views });
    // A host the tenant does not allow gets the refusal page only: no views either.
    expect(await embedPageSettings(database.prisma, "acme", "https://evil.test")).toEqual({ allowed: false, toolViews: {} });
    expect(await getToolViews(database.prisma, globexId)).toEqual({});
    expect(await embedPageSettings(database.prisma, "globex", "https://shop.acme.test")).toEqual({ allowed: false, toolViews: {} });
    expect(await embedPageSettings(database.prisma, "no-such-tenant", "https://shop.acme.test")).toEqual({ allowed: false, toolViews: {} });
  });

  it("refuse a view that does not parse, naming where, and keep what was saved", async () => {
    await expect(setToolViews(database.prisma, acmeId, { calculator: { title: "x", fields: [{ label: "A", value: "process.env" }] } })).rejects.toMatchObject({
      message: expect.stringMatching(/^calculator\.fields\.0\.value: A value is input or output/),
      field: "views",
    });
    await expect(setToolViews(database.prisma, acmeId, { "<b>": { title: "x" } })).rejects.toThrow(/A tool name is/);
    expect(await getToolViews(database.prisma, acmeId)).toEqual(views);
    // Cleared: every tool drawn by default again.
    expect(await setToolViews(database.prisma, acmeId, {})).toEqual({});
  });
});

describe("allowed embed origins", () => {
  it("are stored normalised and refuse paths and other schemes", async () => {
    expect(await setAllowedOrigins(database.prisma, acmeId, ["https://shop.acme.test", "http://127.0.0.1:4000/", "https://shop.acme.test"])).toEqual([
      "https://shop.acme.test",
      "http://127.0.0.1:4000",
    ]);
    await expect(setAllowedOrigins(database.prisma, acmeId, ["https://shop.acme.test/help"])).rejects.toThrow(/not an origin/);
    await expect(setAllowedOrigins(database.prisma, acmeId, ["javascript:alert(1)"])).rejects.toThrow(/not an origin/);
    expect(await getAllowedOrigins(database.prisma, acmeId)).toEqual(["https://shop.acme.test", "http://127.0.0.1:4000"]);
  });

  it("make the embed page's frame-ancestors, and say whether the host may show the chat; an unknown tenant gets only 'self'", async () => {
    const acmeAncestors = "'self' https://shop.acme.test http://127.0.0.1:4000";
    expect(await embedFraming(database.prisma, "acme", undefined)).toEqual({ hostAllowed: undefined, frameAncestors: acmeAncestors });
    expect(await embedFraming(database.prisma, "acme", "https://shop.acme.test")).toEqual({ hostAllowed: true, frameAncestors: acmeAncestors });
    expect(await embedFraming(database.prisma, "acme", "https://evil.test")).toEqual({ hostAllowed: false, frameAncestors: acmeAncestors });
    expect(await embedFraming(database.prisma, "globex", "https://shop.acme.test")).toEqual({ hostAllowed: false, frameAncestors: "'self'" });
    expect(await embedFraming(database.prisma, "no-such-tenant", undefined)).toEqual({ hostAllowed: undefined, frameAncestors: "'self'" });
    expect(await embedFraming(database.prisma, undefined, "https://shop.acme.test")).toEqual({ hostAllowed: false, frameAncestors: "'self'" });
  });

  it("gate minting: a token only for an allowed origin", async () => {
    const { token } = await mintEmbedToken(database.prisma, { tenantId: acmeId, userId: memberId, origin: "http://127.0.0.1:4000" });
    expect(token.split(".")).toHaveLength(3);
    await expect(mintEmbedToken(database.prisma, { tenantId: acmeId, userId: memberId, origin: "http://localhost:4000" })).rejects.toThrow(EmbedMintRefused);
  });
});

describe("the chat context of an embed token", () => {
  const request = (headers: Record<string, string>) => new Request("http://127.0.0.1/api/chat", { method: "POST", headers });

  it("opens the member's chat in the token's tenant, only from the token's origin", async () => {
    const { token } = await mintEmbedToken(database.prisma, { tenantId: acmeId, userId: memberId, origin: "http://127.0.0.1:4000", agent: "Support" });
    const context = await resolveFrameworkChatContext(request({ [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "http://127.0.0.1:4000" }));
    expect(context?.subject).toEqual({ tenantId: acmeId, userId: memberId, via: "embed" });
    expect(bound.at(-1)).toEqual({ tenantId: acmeId, userId: memberId });
    // Bound to its agent.
    await expect(context!.agentId("Billing")).rejects.toThrow(ChatRefusal);

    expect(await resolveFrameworkChatContext(request({ [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "http://localhost:4000" }))).toBeNull();
    expect(await resolveFrameworkChatContext(request({ [EMBED_TOKEN_HEADER]: token }))).toBeNull();
    expect(await resolveFrameworkChatContext(request({ [EMBED_TOKEN_HEADER]: `${token}x`, [EMBED_ORIGIN_HEADER]: "http://127.0.0.1:4000" }))).toBeNull();
  });

  it("tells an expired token (token_expired, so the iframe renews it) from a refused one", async () => {
    const issued = new Date(Date.now() - 20 * 60_000);
    const { token } = await signEmbedToken({ tenantId: acmeId, userId: memberId, origin: "http://127.0.0.1:4000" }, { now: issued });
    const headers = { [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "http://127.0.0.1:4000" };
    await expect(resolveFrameworkChatContext(request(headers))).rejects.toMatchObject({
      chatError: { kind: "token_expired", code: "embed_token_expired" },
    });
    const response = await chatHandlers.send(request(headers));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { kind: string } }).error.kind).toBe("token_expired");
    // A forged one is still a plain refusal.
    expect(await resolveFrameworkChatContext(request({ ...headers, [EMBED_TOKEN_HEADER]: `${token}x` }))).toBeNull();
  });

  it("is refused for a tenant the user is not a member of, and once the origin is no longer allowed", async () => {
    const globexId = (await database.prisma.tenant.findUniqueOrThrow({ where: { slug: "globex" } })).id;
    await setAllowedOrigins(database.prisma, globexId, ["http://127.0.0.1:4000"]);
    const foreign = await signEmbedToken({ tenantId: globexId, userId: memberId, origin: "http://127.0.0.1:4000" });
    expect(await resolveFrameworkChatContext(request({ [EMBED_TOKEN_HEADER]: foreign.token, [EMBED_ORIGIN_HEADER]: "http://127.0.0.1:4000" }))).toBeNull();

    const { token } = await signEmbedToken({ tenantId: acmeId, userId: memberId, origin: "http://127.0.0.1:4000" });
    const headers = { [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "http://127.0.0.1:4000" };
    expect(await resolveFrameworkChatContext(request(headers))).not.toBeNull();
    await setAllowedOrigins(database.prisma, acmeId, ["https://shop.acme.test"]);
    expect(await resolveFrameworkChatContext(request(headers))).toBeNull();
  });

  it("connects only the apps the tenant offers, with the app's own callback as redirect_uri", async () => {
    const { token } = await mintEmbedToken(database.prisma, { tenantId: acmeId, userId: memberId, origin: "https://shop.acme.test" });
    const context = await resolveFrameworkChatContext(
      new Request("http://127.0.0.1:3000/api/chat/actions", {
        method: "POST",
        headers: { [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "https://shop.acme.test", host: "127.0.0.1:3000" },
      }),
    );
    await expect(context!.connect!({ app: "codehost", mode: "popup" })).rejects.toThrow(/does not offer the app "codehost"/);
    expect(connects).toEqual([]);

    await setAppOffered(database.prisma, acmeId, "codehost", true);
    expect(await context!.connect!({ app: "codehost", mode: "popup" })).toEqual({ authorizationUrl: "https://oauth.test/authorize?app=codehost" });
    expect(connects).toHaveLength(1);
    const redirect = new URL(connects[0]!.redirectUri);
    expect(redirect.pathname).toMatch(/^\/api\/connections\/callback\/[\w-]+\.[\w-]+\.[\w-]+$/);
    // The state names the member of the token, so the popup completes it without the token.
    expect(await verifyConnectionState(redirect.pathname.split("/").pop()!)).toEqual({
      tenantId: acmeId,
      userId: memberId,
      app: "codehost",
      returnTo: "/connections",
      mode: "popup",
    });
    // The popup hands the grant back to the iframe, which completes it with the token's member.
    expect(await context!.complete!({ app: "codehost", connectionId: "conn_1" })).toMatchObject({ status: "active", app: "codehost" });
    await expect(context!.complete!({ app: "mail", connectionId: "conn_1" })).rejects.toThrow(ChatRefusal);

    // From the shop's own page (@inlay/react, the browser's Origin is the token's): the state names
    // that page, so the callback tells it, not Inlay's origin, the outcome.
    const inPage = await resolveFrameworkChatContext(
      new Request("http://127.0.0.1:3000/api/chat/actions", {
        method: "POST",
        headers: { [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: "https://shop.acme.test", origin: "https://shop.acme.test" },
      }),
    );
    await inPage!.connect!({ app: "codehost", mode: "popup" });
    const state = await verifyConnectionState(new URL(connects[1]!.redirectUri).pathname.split("/").pop()!);
    expect(state).toMatchObject({ userId: memberId, app: "codehost", opener: "https://shop.acme.test" });
  });
});

describe("public/embed.js", () => {
  it("stays under 3 KB gzipped", () => {
    expect(gzipSync(readFileSync("public/embed.js")).length).toBeLessThanOrEqual(3 * 1024);
  });
});
