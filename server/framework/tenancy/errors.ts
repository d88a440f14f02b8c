// The framework's domain errors. Services throw these (no tRPC types here); server/framework/api/trpc.ts maps
// them to TRPCError codes with the original kept as `cause`, so the UI can read the details.
import { formatMicros } from "@inlay/core/money";
import { PlatformApiError } from "@inlay/core/platform-client";
import { isDatabaseAway } from "@/server/shared/db-errors";

export type TenancyErrorCode = "NOT_FOUND" | "FORBIDDEN" | "CONFLICT" | "BAD_REQUEST" | "TOO_MANY_REQUESTS";

export class TenancyError extends Error {
  override name = "TenancyError";
  constructor(
    readonly code: TenancyErrorCode,
    message: string,
    /** Which input field the error is about, for forms that show errors per field. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** What a person reads while the app's database is away or too busy (a restart): not the driver's words. */
export const DATABASE_AWAY_MESSAGE = "The service is briefly unavailable. Try again in a moment.";

/**
 * True when a request of the app failed because its own database is away or too busy (every transport
 * answers 503 with Retry-After). A platform the app cannot reach is the platform client's error, a
 * lost connection, whatever socket error lies beneath it.
 */
export const isAppDatabaseAway = (error: unknown): boolean => !(error instanceof PlatformApiError) && isDatabaseAway(error);

export type LimitKind =
  | "member_runs"
  | "tenant_runs"
  | "tenant_cost"
  | "member_cost"
  | "concurrent_runs"
  | "turns_per_minute"
  | "active_schedules";

/**
 * What a refused admission tells the caller. `limit` names the limit (as the issue asks); the
 * configured ceiling is `max`, since one object cannot hold two `limit` keys. `resetsAt` is null for
 * concurrent runs, which free up when a run ends rather than at a time.
 */
export interface LimitExceededDetails {
  limit: LimitKind;
  /** For the cost limits, micro-USD (as are `max`'s); otherwise a count. */
  used: number;
  max: number;
  resetsAt: string | null;
}

const describe: Record<LimitKind, string> = {
  member_runs: "your monthly run cap",
  member_cost: "your monthly cost cap",
  tenant_runs: "your workspace's monthly run limit",
  tenant_cost: "your workspace's monthly cost limit",
  concurrent_runs: "your workspace's limit of runs at once",
  turns_per_minute: "the limit of messages per minute",
  active_schedules: "your workspace's limit of active schedules",
};

const isCost = (limit: LimitKind) => limit === "tenant_cost" || limit === "member_cost";

export class LimitExceededError extends TenancyError {
  override name = "LimitExceededError";
  constructor(readonly details: LimitExceededDetails) {
    const show = (amount: number) => (isCost(details.limit) ? formatMicros(amount) : String(amount));
    super("TOO_MANY_REQUESTS", `You have reached ${describe[details.limit]} (${show(details.used)} of ${show(details.max)}).`);
  }
}
