// Platform operations lib/platform-client has no method for yet (runs.reply, the usage reports),
// made through the client's own Transport so they get the same key, user scope, retries,
// Idempotency-Key and error classes as every other call. Replace each with the client's method once
// it has one.
import type { z } from "zod";
import type { RunReply } from "@/lib/schemas/runs";
import type { EndUserUsagePage, UsageTimeseries } from "@/lib/schemas/billing";
import type { Run } from "@/lib/platform-client";
import { Transport } from "@/lib/platform-client/transport";
import type { PlatformConnection } from "./platform-connection";

export type EndUserUsage = z.infer<typeof EndUserUsagePage>["data"][number];
export type UsageTimeseriesResult = z.infer<typeof UsageTimeseries>;

/** POST /runs/{run_id}/reply with stream=false: the reopened run (creates a run turn, so keyed and retryable). */
export function replyToRun(
  connection: PlatformConnection,
  platformUserId: string,
  runId: number,
  params: Omit<z.input<typeof RunReply>, "stream" | "user_id">,
): Promise<Run> {
  return new Transport(connection.options, platformUserId).json<Run>({
    method: "POST",
    path: `/runs/${runId}/reply`,
    body: { ...params, stream: false },
    userId: "body",
    createsRun: true,
  });
}

/** GET /usage/end-users?user_id=…: one end-user's usage this billing period (null: no profile yet). */
export async function endUserUsage(connection: PlatformConnection, platformUserId: string): Promise<EndUserUsage | null> {
  const page = await new Transport(connection.options).json<z.infer<typeof EndUserUsagePage>>({
    method: "GET",
    path: "/usage/end-users",
    query: { user_id: platformUserId, limit: 1 },
  });
  return page.data.find((row) => row.user_id === platformUserId) ?? null;
}

/** GET /usage/timeseries?user_id=…: one end-user's tokens and cost per UTC day. */
export function endUserTimeseries(
  connection: PlatformConnection,
  platformUserId: string,
  range: { start_date: string; end_date: string },
): Promise<UsageTimeseriesResult> {
  return new Transport(connection.options).json<UsageTimeseriesResult>({
    method: "GET",
    path: "/usage/timeseries",
    query: { ...range, user_id: platformUserId },
  });
}
