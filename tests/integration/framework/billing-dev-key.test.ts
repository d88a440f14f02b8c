// The demo's funding path (issue #34 item 4): in development with the platform embedded and no operator
// key configured, the process makes its own (memory only; the platform gets its SHA-256), so the owner's
// top-up on an installation without card payments leads to the console's page for it, where crediting
// it pays the pending top-up: balance, ledger and receipt. Never in production, nor beside a real key.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { creditBalance } from "@/server/framework/tenancy/billing";
import { developmentOperatorKeySha256, makesDevelopmentKey, operatorKeyFor } from "@/server/framework/tenancy/operator-key";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

const OWNER = "owner@inlay.test";
const development = parseEnv({ NODE_ENV: "development" });

describe("the development operator key", () => {
  it("is made only in development, with the platform embedded and no operator key configured", () => {
    expect(makesDevelopmentKey(development)).toBe(true);
    const made = operatorKeyFor(development)!;
    expect(made.development).toBe(true);
    expect(made.key).toMatch(/^op_dev_[\w-]{43}$/);
    // One key per process: the embedded platform's SHA-256 and the credit form's key agree.
    expect(operatorKeyFor(development)!.key).toBe(made.key);
    expect(developmentOperatorKeySha256(development)).toBe(createHash("sha256").update(made.key).digest("hex"));

    const configured = parseEnv({ NODE_ENV: "development", INLAY_OPERATOR_KEY: "op_configured" });
    expect(operatorKeyFor(configured)).toEqual({ key: "op_configured", development: false });
    expect(developmentOperatorKeySha256(configured)).toBeUndefined();
    for (const source of [
      { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(32) },
      { NODE_ENV: "test" },
      { NODE_ENV: "development", INLAY_OPERATOR_KEY_SHA256: "a".repeat(64) },
      { NODE_ENV: "development", PLATFORM_BASE_URL: "http://127.0.0.1:9/api/v2", PLATFORM_API_KEY: "sk_remote" },
    ]) {
      expect(operatorKeyFor(parseEnv(source)), JSON.stringify(source)).toBeNull();
      expect(developmentOperatorKeySha256(parseEnv(source))).toBeUndefined();
    }
  });
});

describe("funding the demo: top up, then credit the pending top-up", () => {
  let fw: FrameworkHarness;
  beforeAll(async () => {
    // The embedded platform as server/framework/embedded-platform.ts configures it in development: the manual
    // payments adapter and the development key's SHA-256.
    fw = await startFramework({ payments: { operatorKeySha256: developmentOperatorKeySha256(development) } });
  }, 120_000);
  afterAll(() => fw?.close());

  it("sends the owner to the console's page for the top-up, and the development key pays it with a receipt", async () => {
    const owner = await fw.callerFor(OWNER);
    const before = (await owner.billing.overview()).balance.balance_micros;
    const { checkoutUrl } = await owner.billing.topUp({ amountCents: 2500 });
    const match = /^\/admin\/billing\/pay\/(pay_[0-9a-f]+)\?amount=2500$/.exec(checkoutUrl);
    expect(match).not.toBeNull();
    const reference = match![1]!;

    const connection = await fw.connect();
    const key = operatorKeyFor(development)!.key;
    const input = { amountCents: 2500, reason: `Top-up ${reference}`, actor: OWNER, paymentReference: reference };
    const credited = await creditBalance(fw.database.prisma, connection, key, input);
    expect(credited).toMatchObject({ payment_reference: reference });
    const after = await owner.billing.overview();
    expect(after.balance.balance_micros).toBe(before + 25_000_000);
    expect(after.balance.transactions[0]!.description).toContain(OWNER);
    const { receipts } = await owner.billing.receipts();
    expect(receipts[0]).toMatchObject({ amount_cents: 2500 });
    // Paid once: the same top-up cannot be credited again.
    await expect(creditBalance(fw.database.prisma, connection, key, input)).rejects.toMatchObject({ status: 409 });
    // Another process's key (a restart makes a new one) is refused.
    await expect(creditBalance(fw.database.prisma, connection, "op_dev_someone_else", { ...input, paymentReference: undefined })).rejects.toMatchObject({
      status: 401,
    });
  });
});
