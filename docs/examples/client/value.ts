import type { PlatformClient } from "@inlay/core/platform-client";

export default async function valueExample(platform: PlatformClient, run: { id: number }) {
  // #region docs
  const client = platform.forUser("user-42");
  const useCase = await client.value.createUseCase({ name: "Invoice triage", goal: "Fewer hours on invoices" });
  await client.value.linkRuns(useCase.id, [run.id]); // runs of the same end-user
  const observation = await client.value.createObservation(useCase.id, {
    kind: "time_saved",
    evidence_level: "measured",
    title: "Two hours of triage saved",
    amount_usd: 120,
    evidence: [{ source: "run", record_id: run.id }],
    observed_at: new Date().toISOString(),
  });
  await client.value.confirmObservation(observation.id, "confirmed"); // only confirmed value counts
  const report = await client.value.report(); // the last 30 UTC days: value, linked runs' cost, net, ratio
  // #endregion
  return { useCase, observation, report };
}
