// client.judgments against a real platform: decide and verify through a forUser client, saved results,
// Idempotency-Key replays, errors as the client's classes, and the connection (account-scoped).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, PlatformApiError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup({ require_end_user_id: false });
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

describe("client.judgments", () => {
  it("decides, reads back, replays by key, and keeps other end-users out", async () => {
    const ada = client.forUser("ada");
    const params = {
      mode: "decide" as const,
      state: "ticket: refund please",
      questions: [{ type: "choice" as const, id: "team", prompt: "Who?", options: ["billing", "support"] }],
    };
    const judgment = await ada.judgments.create(params, { idempotencyKey: "client-judgment-1" });
    expect(judgment).toMatchObject({ user_id: "ada", model: "inlay/sim", funding_source: "platform", independently_authenticated: false });
    expect(judgment.answers).toEqual([{ question_id: "team", type: "choice", answer: "billing", rationale: "sim" }]);
    expect(await ada.judgments.get(judgment.id)).toEqual(judgment);

    const replay = await ada.judgments.create(params, { idempotencyKey: "client-judgment-1" });
    expect(replay.id).toBe(judgment.id);
    expect(replay.cost_usd).toBe(judgment.cost_usd);
    const reuse = await ada.judgments.create({ ...params, state: "other" }, { idempotencyKey: "client-judgment-1" }).catch((error: unknown) => error);
    expect(reuse).toBeInstanceOf(ConflictError);
    expect((reuse as ConflictError).errorCode).toBe("idempotency_key_reuse");

    await expect(client.forUser("bo").judgments.get(judgment.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("verifies claims and reports 410 result_not_retained as an API error", async () => {
    const verdict = await client.judgments.create({
      mode: "verify",
      claims: [{ id: "c", text: "It shipped", evidence_ids: [] }],
    });
    expect(verdict).toMatchObject({ model: "not_called", cost_usd: "0.000000" });
    expect(verdict.claims?.[0]?.verdict).toBe("insufficient_evidence");

    await platform.database.prisma.platformJudgment.update({ where: { id: verdict.id }, data: { resultExpiresAt: new Date(0) } });
    const gone = await client.judgments.get(verdict.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(PlatformApiError);
    expect((gone as PlatformApiError).status).toBe(410);
    expect((gone as PlatformApiError).errorCode).toBe("result_not_retained");
  });

  it("stores, reads and removes the connection without ever returning the key", async () => {
    expect(await client.judgments.connection.get()).toMatchObject({ connected: false, funding_source: "platform" });
    const stored = await client.judgments.connection.set("sk-client-secret");
    expect(stored).toMatchObject({ connected: true, funding_source: "customer" });
    expect(JSON.stringify(stored)).not.toContain("sk-client-secret");
    await client.judgments.connection.delete();
    expect((await client.judgments.connection.get()).connected).toBe(false);
  });
});
