// Run lists: GET /runs, /runs/activity, /runs/check, /runs/needs-you (docs/run-lists.md), and the
// previews they carry.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import { type NeedsYouItem, PREVIEW_MAX_CHARS, type RunActivity, type RunCheck, type RunListFullQuery, type RunListItem, type RunSummary, isTerminalStatus } from "@inlay/core/schemas/runs";
import { PlatformError } from "../../errors";
import { countRunActivity, listRunPage, listRunsNeedingPerson, runFreshness, type RunListScope } from "../../repositories/run-lists";
import type { RunServiceContext } from "./run-context";
import { firstUserText } from "./run-messages";
import type { Scope } from "../scope";
import { toRun } from "./runs";

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { field } });

type RunListQueryIn = z.infer<typeof RunListFullQuery>;
type RunListItemOut = z.infer<typeof RunListItem>;
type RunSummaryOut = z.infer<typeof RunSummary>;

const truncate = (text: string) =>
  text.length <= PREVIEW_MAX_CHARS ? text : `${text.slice(0, PREVIEW_MAX_CHARS - 1).trimEnd()}…`;

/** The text of an AI SDK model message: a string, or its text parts joined. Tool calls and results have none. */
function messageText(message: unknown): string {
  if (typeof message !== "object" || message === null) return "";
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== "user" && role !== "assistant") return "";
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is { type: "text"; text: string } => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n")
    .trim();
}

/** The last user or assistant message that has text, truncated. */
export function latestMessagePreview(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (let index = messages.length - 1; index >= 0; index--) {
    const text = messageText(messages[index]);
    if (text) return truncate(text);
  }
  return null;
}

/** The message that started the run (GET /runs' first_message_preview, an Inlay extension), truncated. */
export function firstMessagePreview(messages: unknown): string | null {
  const text = firstUserText(messages);
  return text ? truncate(text) : null;
}

/** The start of the final output once the run is terminal (completed, failed, cancelled), else null. */
export function closingPreview(row: { status: string; output: unknown }): string | null {
  if (!isTerminalStatus(row.status) || row.output === null || row.output === undefined) return null;
  const text = typeof row.output === "string" ? row.output : JSON.stringify(row.output);
  return text.trim() ? truncate(text.trim()) : null;
}

const listScopeOf = (scope: Scope, includeEndUserRuns: boolean | undefined): RunListScope => ({
  accountId: scope.accountId,
  endUserId: scope.endUserId,
  // include_end_user_runs only widens the account-level scope; with user_id it is ignored.
  allEndUsers: scope.endUserId === null && includeEndUserRuns === true,
});

export async function listRunsPage(
  ctx: RunServiceContext,
  scope: Scope,
  query: RunListQueryIn,
): Promise<Page<RunListItemOut> | Page<RunSummaryOut>> {
  const summary = query.fields === "summary";
  const rows = await listRunPage(
    ctx.prisma,
    listScopeOf(scope, query.include_end_user_runs),
    {
      agentId: query.teammate_id,
      taskId: query.task_id,
      status: query.status,
      archived: query.archived ?? (query.status === "archived" ? "include" : "exclude"),
      excludePlatform: query.exclude_platform_runs ?? false,
    },
    { limit: query.limit, startingAfter: query.starting_after, sort: query.sort ?? "created", withMessages: !summary },
  );
  if (!rows) throw invalid("starting_after", `run ${query.starting_after} is not in this list's scope`);
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  if (summary) {
    return {
      data: page.map((row) => {
        // Destructured out: the summary carries no open-ended payloads.
        // eslint-disable-next-line @typescript-eslint/no-unused-vars
        const { output, output_data, metadata, ...run } = toRun(row, row.endUser?.externalId ?? null);
        return { ...run, closing_preview: closingPreview(row) };
      }),
      has_more,
    };
  }
  return {
    data: page.map((row) => ({
      ...toRun(row, row.endUser?.externalId ?? null),
      closing_preview: closingPreview(row),
      latest_message_preview: latestMessagePreview(row.messages),
      first_message_preview: firstMessagePreview(row.messages),
    })),
    has_more,
  };
}

const startOfUtcDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

export async function runActivity(ctx: RunServiceContext, scope: Scope, now = new Date()): Promise<z.infer<typeof RunActivity>> {
  const counts = await countRunActivity(ctx.prisma, scope, startOfUtcDay(now));
  const open = (status: string) => counts.byStatus[status] ?? 0;
  const finished = (status: string) => counts.finishedTodayByStatus[status] ?? 0;
  return {
    running: open("running"),
    awaiting_approval: open("awaiting_approval"),
    paused: open("paused"),
    needs_you: open("awaiting_approval") + open("paused"),
    completed_today: finished("completed"),
    failed_today: finished("failed"),
    cancelled_today: finished("cancelled"),
    started_today: counts.startedToday,
    last_run_at: counts.lastCreatedAt?.toISOString() ?? null,
  };
}

export async function checkRuns(ctx: RunServiceContext, scope: Scope): Promise<z.infer<typeof RunCheck>> {
  const fresh = await runFreshness(ctx.prisma, scope);
  const open = (status: string) => fresh.byStatus[status] ?? 0;
  return {
    latest_run_id: fresh.latestId,
    latest_updated_at: fresh.latestUpdatedAt?.toISOString() ?? null,
    needs_you: open("awaiting_approval") + open("paused"),
    running: open("running"),
  };
}

export async function listRunsNeedingYou(
  ctx: RunServiceContext,
  scope: Scope,
  page: { limit: number; starting_after?: number },
): Promise<Page<z.infer<typeof NeedsYouItem>>> {
  const rows = await listRunsNeedingPerson(ctx.prisma, scope, { limit: page.limit, startingAfter: page.starting_after });
  return {
    data: rows.slice(0, page.limit).map((row) => ({
      ...toRun(row, scope.userId),
      pending_requests: row.permissionRequests.map((request) => ({
        request_id: request.id,
        tool_name: request.toolName,
        kind: request.kind,
        created_at: request.createdAt.toISOString(),
      })),
    })),
    has_more: rows.length > page.limit,
  };
}
