// Two instances of one deployment, each with its own connection pool to one PostgreSQL database:
// a due refresh of an app connection happens once between them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/server/shared/db";
import { authorizationFor, openCredentials } from "@/server/platform/services/apps/app-credentials";
import { codehostSettings, startCodehostFake, type CodehostFake } from "../../helpers/app-fakes";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

const REDIRECT = "https://app.example.test/connected";

let oauth: OAuthServer;
let codehost: CodehostFake;
let platform: PlatformHarness;
let other: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  const empty = await createEmptyPostgresDatabase();
  drop = empty.drop;
  const first = await openDatabase({ url: empty.url });
  other = await openDatabase({ url: empty.url });
  platform = await startPlatform({
    database: { ...first, dispose: () => first.close() },
    apps: {
      overrides: {
        codehost: codehostSettings(oauth, codehost),
      },
      redirectOrigins: [REDIRECT],
    },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`]);
});

afterAll(async () => {
  await platform?.close();
  await platform?.database.close();
  await other?.close();
  await drop?.();
  await codehost?.close();
  await oauth?.close();
});

describe("refresh across instances", () => {
  it("refreshes a due token once when two instances need it at the same moment", async () => {
    const owner = await platform.signup();
    const started = await platform.call("/apps/codehost/connect", { key: owner.key, body: { redirect_uri: REDIRECT, user_id: "alice" } });
    await oauth.authorize(started.body.authorization_url, REDIRECT);
    const completed = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.body.connection_id, user_id: "alice" } });
    expect(completed.status).toBe(200);
    const id = started.body.connection_id as string;

    for (let round = 0; round < 3; round++) {
      await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() + 1_000) } });
      const refreshes = oauth.grants.refresh_token ?? 0;
      const results = await Promise.all([
        authorizationFor({ prisma: platform.database.prisma, config: platform.config }, id),
        authorizationFor({ prisma: other.prisma, config: platform.config }, id),
        authorizationFor({ prisma: other.prisma, config: platform.config }, id),
      ]);
      expect(oauth.grants.refresh_token).toBe(refreshes + 1);
      expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
      const stored = await platform.database.prisma.platformAppConnection.findUniqueOrThrow({ where: { id } });
      const { credentials } = openCredentials(platform.config, stored.credentialsSealed!);
      expect(results[0]).toMatchObject({ ok: true, headers: { Authorization: `Bearer ${credentials.kind === "oauth2" ? credentials.access_token : ""}` } });
    }
    expect(oauth.grantErrors).toEqual([]);
  });
});
