// Rotating INLAY_SECRET_KEY (docs/platform-api.md, "Credentials of tool calls"): with the old key in
// INLAY_SECRET_KEY_PREVIOUS every sealed value still opens, the reseal job (started by the rotated
// platform itself) seals them all under the new key, after which the old key can go; a value no key
// opens is reported, and a webhook whose secret is lost is still listed, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEALED_COLUMNS } from "@/server/platform/repositories/sealed-columns";
import { platformSealedColumns, resealSecrets } from "@/server/platform/jobs/reseal-secrets";
import { openSecret, SEALED_FOR, sealSecret } from "@/server/platform/services/sealed-secrets";
import { pollFor } from "../../helpers/poll";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const OLD_KEY = "the-key-before-rotation";
const NEW_KEY = "the-key-after-rotation";

let platform: PlatformHarness;
let account: Account;

beforeAll(async () => {
  platform = await startPlatform({ secretKey: OLD_KEY });
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(async () => {
  await platform?.close();
});

const prisma = () => platform.database.prisma;

async function created(path: string, body: Record<string, unknown>) {
  const response = await platform.call(path, { key: account.key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

describe("rotating the secret key", () => {
  it("lists every sealed column of the schema", async () => {
    const columns = await prisma().$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name LIKE 'platform\\_%' AND column_name LIKE '%\\_sealed'",
    );
    expect(columns.length).toBeGreaterThan(10);
    const listed = new Set(SEALED_COLUMNS.map((at) => `${at.table}.${at.column}`));
    expect(columns.map((row) => `${row.table_name}.${row.column_name}`).sort()).toEqual([...listed].sort());
  });

  it("opens values under the previous key, seals them all again under the new one, and then needs the old key no more", async () => {
    const webhook = await created("/webhooks", { url: "http://127.0.0.1:9/hook", events: ["run.completed"] });
    const bridge = await created("/bridges", { server_url: "http://127.0.0.1:9", password: "bridge-password-1" });
    const server = await created("/mcp-servers", {
      name: "Weather",
      url: "http://127.0.0.1:9/v1",
      kind: "rest_api",
      auth_type: "api_key",
      auth_config: { header: "X-Api-Key" },
      secret: "tool-server-secret-1",
      tool_defs: [{ name: "get_weather", method: "GET", path: "/weather" }],
    });
    const masked = (await platform.call(`/webhooks/${webhook.id}`, { key: account.key })).body.secret;
    const sealedBefore = await prisma().platformBridge.findUniqueOrThrow({ where: { id: bridge.id } });

    const rotated = await startPlatform({ database: platform.database, secretKey: NEW_KEY, previousSecretKeys: [OLD_KEY] });
    try {
      // Readable at once, before the job has run.
      const during = await rotated.call(`/webhooks/${webhook.id}`, { key: account.key });
      expect(during.status).toBe(200);
      expect(during.body.secret).toBe(masked);
      // The rotated platform enqueued the job; its worker runs it.
      await pollFor(async () => {
        const stale = await Promise.all(
          SEALED_COLUMNS.map(async (at) => {
            const rows = await prisma().$queryRawUnsafe<{ sealed: string }[]>(`SELECT ${at.column} AS sealed FROM ${at.table} WHERE ${at.column} IS NOT NULL`);
            return rows.filter((row) => openSecret(rotated.config, row.sealed, SEALED_FOR[at.purpose]).stale).length;
          }),
        );
        return stale.every((count) => count === 0);
      }, "every value sealed under the new key");
    } finally {
      await rotated.close();
    }

    const newOnly = await startPlatform({ database: platform.database, secretKey: NEW_KEY });
    try {
      const after = await newOnly.call(`/webhooks/${webhook.id}`, { key: account.key });
      expect(after.body.secret).toBe(masked);
      const bridgeRow = await prisma().platformBridge.findUniqueOrThrow({ where: { id: bridge.id } });
      expect(bridgeRow.passwordSealed).not.toBe(sealedBefore.passwordSealed);
      expect(openSecret(newOnly.config, bridgeRow.passwordSealed).value).toBe("bridge-password-1");
      const serverRow = await prisma().platformToolServer.findUniqueOrThrow({ where: { id: server.id } });
      expect(openSecret(newOnly.config, serverRow.secretSealed!).value).toBe("tool-server-secret-1");
      // Nothing left for the old key anywhere.
      expect((await resealSecrets(prisma(), platformSealedColumns(newOnly.config))).unreadable).toEqual([]);
    } finally {
      await newOnly.close();
    }
  });

  it("reports values no configured key opens, and still lists a webhook whose secret is lost", async () => {
    const lostKey = { ...platform.config, secretKey: "a-key-nobody-kept", previousSecretKeys: [] };
    const webhook = await created("/webhooks", { url: "http://127.0.0.1:9/lost", events: ["run.completed"] });
    await prisma().platformWebhook.update({ where: { id: webhook.id }, data: { secretSealed: sealSecret(lostKey, "whsec_lost", SEALED_FOR.webhooks) } });
    const result = await resealSecrets(prisma(), platformSealedColumns({ ...platform.config, secretKey: NEW_KEY, previousSecretKeys: [] }));
    expect(result.unreadable).toContain("platform_webhooks.secret_sealed");
    expect(result.resealed).toBe(0);

    const listed = await platform.call("/webhooks", { key: account.key });
    expect(listed.status).toBe(200);
    const lost = listed.body.data.find((each: { id: number }) => each.id === webhook.id);
    expect(lost.secret).toContain("cannot be decrypted");
    // Rotating its secret mends it.
    const mended = await platform.call(`/webhooks/${webhook.id}`, { key: account.key, method: "PATCH", body: { rotate_secret: true } });
    expect(mended.status).toBe(200);
    expect(mended.body.secret).toMatch(/^whsec_/);
  });
});
