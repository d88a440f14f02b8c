import type { PlatformClient } from "@inlay/core/platform-client";

export default async function usageExample(client: PlatformClient) {
  // #region docs
  const usage = await client.usage.get(); // the account's, this billing period (UTC month)
  console.log(`${usage.runs_used} runs, $${usage.cost_used}`);
  for await (const row of client.usage.endUsers.list({ limit: 50 })) console.log(row.user_id, row.cost_used);
  const mine = await client.forUser("user-42").usage.endUsers.list(); // that end-user's row only
  const days = await client.usage.timeseries({ start_date: "2025-01-01", end_date: "2025-01-31", group_by: "model" });

  const { balance_micros, available_micros, transactions } = await client.billing.balance();
  // #endregion
  return { usage, mine, days, balance_micros, available_micros, transactions };
}
