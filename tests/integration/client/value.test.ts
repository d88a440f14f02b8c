// client.value against a real platform: every method through a forUser client, and errors as the
// client's classes (another end-user's use case, a decision reversed, a bad field).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError, createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

describe("client.value", () => {
  it("creates, lists, reads and updates use cases, records and confirms observations, links runs and reports", async () => {
    const ada = client.forUser("ada");
    const agent = await ada.agents.create({ name: "Helper", default_permission_mode: "autonomous" });
    const run = await ada.runs.create({ teammate_id: agent.id, message: "hello", stream: false });
    await expect.poll(async () => (await ada.runs.get(run.id)).status).toBe("completed");

    const useCase = await ada.value.createUseCase({ name: "Support replies", goal: "Answer faster", measurement_model: { unit: "minutes" } });
    expect(useCase).toMatchObject({ user_id: "ada", status: "active", linked_run_count: 0 });
    const second = await ada.value.createUseCase({ name: "Second", goal: "g" });
    expect((await ada.value.listAllUseCases()).map((row) => row.id)).toEqual([second.id, useCase.id]);
    expect((await ada.value.updateUseCase(second.id, { status: "archived" })).status).toBe("archived");
    expect((await ada.value.listUseCases({ status: "active" })).data.map((row) => row.id)).toEqual([useCase.id]);
    expect((await ada.value.getUseCase(useCase.id)).name).toBe("Support replies");

    expect(await ada.value.linkRuns(useCase.id, [run.id, run.id])).toEqual({ use_case_id: useCase.id, run_ids: [run.id], added: 1, linked_run_count: 1 });
    const observation = await ada.value.createObservation(useCase.id, {
      kind: "time_saved",
      evidence_level: "self_reported",
      title: "Replied in a minute",
      amount_usd: 9.99,
      evidence: [{ source: "run", record_id: run.id }],
      observed_at: new Date().toISOString(),
    });
    expect((await ada.value.listObservations(useCase.id)).data.map((row) => row.id)).toEqual([observation.id]);
    expect((await ada.value.confirmObservation(observation.id, "confirmed")).status).toBe("confirmed");

    const report = await ada.value.report();
    expect(report.user_id).toBe("ada");
    expect(report.use_cases.find((row) => row.use_case_id === useCase.id)).toMatchObject({
      confirmed_value_usd: "9.990000",
      value_by_evidence_level: { self_reported: "9.990000", measured: "0.000000", verified: "0.000000" },
      run_count: 1,
    });
  });

  it("maps errors to the client's classes", async () => {
    const bo = client.forUser("bo");
    const useCase = await bo.value.createUseCase({ name: "Mine", goal: "g" });
    await expect(client.forUser("cy").value.getUseCase(useCase.id)).rejects.toBeInstanceOf(NotFoundError);
    const observation = await bo.value.createObservation(useCase.id, {
      kind: "other",
      evidence_level: "verified",
      title: "t",
      evidence: [{ source: "external", record_id: "r" }],
      observed_at: new Date().toISOString(),
    });
    await bo.value.confirmObservation(observation.id, "rejected");
    const reversed = await bo.value.confirmObservation(observation.id, "confirmed").catch((error: unknown) => error);
    expect(reversed).toBeInstanceOf(ConflictError);
    expect((reversed as ConflictError).errorCode).toBe("observation_already_decided");
    await expect(bo.value.linkRuns(useCase.id, [])).rejects.toBeInstanceOf(ValidationError);
    // Strict mode (the default for API signups): no account-level report.
    await expect(client.value.report()).rejects.toBeInstanceOf(ValidationError);
  });
});
