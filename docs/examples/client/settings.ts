import type { PlatformClient } from "@inlay/core/platform-client";

export default async function settingsExample(client: PlatformClient) {
  // #region docs
  const settings = await client.settings.get();
  const capped = await client.settings.update({ per_end_user_run_limit: 100, per_end_user_rate_per_minute: null });
  // #endregion
  return { settings, capped };
}
