import type { PlatformClient } from "@inlay/core/platform-client";

export default async function issueReportsExample(client: PlatformClient) {
  // #region docs
  const open = await client.forUser("user-42").issueReports.listAll({ status: "open" });
  const everyone = await client.issueReports.list({ include_end_users: true }); // account view, every end-user
  for (const report of open) await client.forUser("user-42").issueReports.update(report.id, { status: "resolved" });
  // #endregion
  return { open, everyone, after: await client.forUser("user-42").issueReports.listAll({ status: "open" }) };
}
