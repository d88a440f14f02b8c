// The chat API from another site's page (@inlay/react in a vendor's app, no iframe): preflights for
// the origins a tenant allows, streamed answers readable by the token's own origin only, a browser
// Origin other than the token's refused, same-origin requests unchanged, and the member's quota.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { setAppOffered } from "@/server/framework/tenancy/apps-repository";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

const SHOP = "http://127.0.0.1:4100";
const ELSEWHERE = "http://127.0.0.1:4200";
const APP = "http://127.0.0.1";

let fw: FrameworkHarness;
let token: string;

beforeAll(async () => {
  fw = await startFramework();
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, member) => lazyPlatformClient(prisma, () => fw.connect(), member.tenant, member.userId)());
  const acme = await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
  await setAllowedOrigins(fw.database.prisma, acme.id, [SHOP]);
  const member = await fw.database.prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
  token = (await signEmbedToken({ tenantId: acme.id, userId: member.id, origin: SHOP })).token;
}, 120_000);
afterAll(() => fw?.close());

const tokenHeaders = (origin?: string) => ({
  "content-type": "application/json",
  [EMBED_TOKEN_HEADER]: token,
  [EMBED_ORIGIN_HEADER]: SHOP,
  ...(origin ? { origin } : {}),
});

let counter = 0;
const send = (headers: Record<string, string>) =>
  chatHandlers.send(
    new Request(`${APP}/api/chat`, {
      method: "POST",
      headers,
      body: JSON.stringify({ agent: "Acme assistant", message: { id: `c${++counter}`, role: "user", parts: [{ type: "text", text: "::words 3" }] } }),
    }),
  );

describe("the chat API across origins", () => {
  it("answers a preflight for an origin a tenant allows, and refuses any other without CORS headers", async () => {
    const preflight = (origin: string) =>
      chatHandlers.preflight(new Request(`${APP}/api/chat`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } }));
    const allowed = await preflight(SHOP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(allowed.headers.get("access-control-allow-headers")).toContain("x-inlay-embed-token");
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
    const refused = await preflight(ELSEWHERE);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("streams a turn to the token's own origin with the headers its page reads", async () => {
    const response = await send(tokenHeaders(SHOP));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(response.headers.get("access-control-expose-headers")).toContain("x-run-id");
    expect(response.headers.get("x-run-id")).toMatch(/^\d+$/);
    expect(await response.text()).toContain('"type":"finish"');
  });

  it("refuses a token sent from another site's page (the browser's Origin is not the token's)", async () => {
    const response = await send(tokenHeaders(ELSEWHERE));
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe(ELSEWHERE);
    expect(((await response.json()) as { error: { kind: string } }).error.kind).toBe("unauthorized");
  });

  it("leaves same-origin requests as they were: no CORS headers", async () => {
    const response = await send(tokenHeaders(APP));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    await response.text();
    // The host the browser used is the app's own too, whatever host Next built the URL with.
    const viaHost = await send({ ...tokenHeaders("http://inlay.test:3100"), host: "inlay.test:3100" });
    expect(viaHost.status).toBe(200);
    expect(viaHost.headers.get("access-control-allow-origin")).toBeNull();
    await viaHost.text();
  });

  it("answers the member's quota, the same numbers the console's meter shows", async () => {
    const response = await chatHandlers.quota(new Request(`${APP}/api/chat/quota`, { headers: tokenHeaders(SHOP) }));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(SHOP);
    const quota = (await response.json()) as { member: { runs: { used: number } } };
    const console = await (await fw.callerFor("member@acme.test", "acme")).usage.mine();
    expect(quota).toEqual(JSON.parse(JSON.stringify(console)));
    // The turns above were runs of this member.
    expect(quota.member.runs.used).toBeGreaterThanOrEqual(2);
    const forged = await chatHandlers.quota(new Request(`${APP}/api/chat/quota`, { headers: { ...tokenHeaders(SHOP), [EMBED_TOKEN_HEADER]: `${token}x` } }));
    expect(forged.status).toBe(401);
  });

  it("lists the apps the member may connect, as the console's Connections page does", async () => {
    const list = () => chatHandlers.connections(new Request(`${APP}/api/chat/connections`, { headers: tokenHeaders(SHOP) }));
    const before = await list();
    expect(before.status).toBe(200);
    expect(before.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(((await before.json()) as { apps: unknown[] }).apps).toEqual([]);
    const acme = await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    await setAppOffered(fw.database.prisma, acme.id, "codehost", true);
    const apps = ((await (await list()).json()) as { apps: { slug: string; status: string }[] }).apps;
    expect(apps).toEqual([expect.objectContaining({ slug: "codehost", status: "not_connected" })]);
    const console = await (await fw.callerFor("member@acme.test", "acme")).connections.list();
    expect(apps).toEqual(JSON.parse(JSON.stringify(console)));
    // A disconnect names an app by its slug; anything else is refused before the platform is asked.
    const refused = await chatHandlers.act(
      new Request(`${APP}/api/chat/actions`, { method: "POST", headers: tokenHeaders(SHOP), body: JSON.stringify({ action: "disconnect", app: "Not A Slug" }) }),
    );
    expect(refused.status).toBe(422);
  });
});
