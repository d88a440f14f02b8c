import type { PlatformClient } from "@inlay/core/platform-client";

export default async function permissionsExample(platform: PlatformClient) {
  // #region docs
  const client = platform.forUser("user-42");
  // Tools on the allow-list run without asking in approval mode.
  const allowed = await client.permissions.create({ tool: "calculator" });
  const { data } = await client.permissions.list();
  await client.permissions.delete(allowed.id);
  // #endregion
  return { allowed, data };
}
