// Account settings: retention, strict end-user scoping, per-end-user caps and approval notices.
import type { z } from "zod";
import type { Settings, UpdateSettingsRequest } from "@inlay/core/schemas/settings";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import * as settings from "../../repositories/settings";
import type { SettingsRow } from "../../repositories/settings";

export const toSettings = (row: SettingsRow): z.infer<typeof Settings> => ({
  retention_mode: row.retentionMode === "metadata_only" ? "metadata_only" : "standard",
  require_end_user_id: row.requireEndUserId,
  per_end_user_run_limit: row.perEndUserRunLimit,
  per_end_user_cost_limit_cents: row.perEndUserCostLimitCents,
  per_end_user_rate_per_minute: row.perEndUserRatePerMinute,
  approval_email_enabled: row.approvalEmailEnabled,
  approval_chat_enabled: row.approvalChatEnabled,
  company_research: row.companyResearch,
});

// The key was valid a moment ago, so a missing account was deleted mid-request.
const accountGone = () => new PlatformError({ type: "not_found", message: "account not found" });

export async function getSettings(prisma: Db, accountId: number) {
  const row = await settings.findSettings(prisma, accountId);
  if (!row) throw accountGone();
  return toSettings(row);
}

/**
 * Fields left out stay as they are; an empty change returns the current settings. Keys carry
 * require_end_user_id into the auth context, so changing it drops the account's cached keys everywhere.
 */
export async function updateSettings(
  ctx: DataContext,
  accountId: number,
  changes: z.infer<typeof UpdateSettingsRequest>,
) {
  const row = await settings.updateSettings(ctx.prisma, accountId, {
    retentionMode: changes.retention_mode,
    requireEndUserId: changes.require_end_user_id,
    perEndUserRunLimit: changes.per_end_user_run_limit,
    perEndUserCostLimitCents: changes.per_end_user_cost_limit_cents,
    perEndUserRatePerMinute: changes.per_end_user_rate_per_minute,
    approvalEmailEnabled: changes.approval_email_enabled,
    approvalChatEnabled: changes.approval_chat_enabled,
    companyResearch: changes.company_research,
  });
  if (changes.require_end_user_id !== undefined) ctx.cache.accountChanged(accountId);
  if (!row) throw accountGone();
  return toSettings(row);
}
