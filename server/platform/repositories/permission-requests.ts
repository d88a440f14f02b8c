// A run's requests for a person: tool approvals, questions, and apps to connect.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";

export interface NewRequest {
  id: string;
  kind: "tool" | "question" | "plan" | "connection";
  /** kind connection: the app whose connection lets the run go on. */
  app?: string;
  toolName: string;
  toolCallId: string;
  input: unknown;
}

/** A request's public id (`request_id`). */
export const newRequestId = () => `perm_${randomBytes(12).toString("hex")}`;

export const createRequests = (prisma: PrismaClient, runId: number, requests: NewRequest[]) =>
  prisma.platformPermissionRequest.createMany({
    data: requests.map((request) => ({ ...request, runId, input: request.input as Prisma.InputJsonValue })),
  });

/**
 * createRequests as an INSERT for a statement that writes the requests with the run's change
 * (repositories/billing.ts, endRunWithinHold); `when`, a condition of that statement, keeps them out
 * when the change did not happen. status, remember and created_at take their defaults, as there.
 */
export const requestsInsert = (runId: number, requests: NewRequest[], when: Prisma.Sql) => Prisma.sql`
    INSERT INTO platform_permission_requests (id, run_id, kind, app, tool_name, tool_call_id, input)
    SELECT r->>'id', ${runId}::int, r->>'kind', r->>'app', r->>'toolName', r->>'toolCallId', r->'input'
    FROM jsonb_array_elements(${JSON.stringify(requests)}::jsonb) AS r
    WHERE ${when}`;

export const findRequest = (prisma: PrismaClient, runId: number, id: string) =>
  prisma.platformPermissionRequest.findFirst({ where: { id, runId } });

export const findPendingRequests = (prisma: PrismaClient, runId: number) =>
  prisma.platformPermissionRequest.findMany({ where: { runId, status: "pending" }, orderBy: { createdAt: "asc" } });

export const listRequests = (prisma: PrismaClient, runId: number) =>
  prisma.platformPermissionRequest.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });

/** Resolved requests whose outcome the executor has not fed back to the model yet. */
export const resolvedRequests = (prisma: PrismaClient, runId: number, toolCallIds: string[]) =>
  prisma.platformPermissionRequest.findMany({ where: { runId, toolCallId: { in: toolCallIds } } });

/** Tools the person allowed with remember=true in this run: later calls of them need no approval. */
export async function rememberedTools(prisma: PrismaClient, runId: number): Promise<Set<string>> {
  const rows = await prisma.platformPermissionRequest.findMany({
    where: { runId, remember: true, status: "allowed", kind: "tool" },
    select: { toolName: true },
  });
  return new Set(rows.map((row) => row.toolName));
}

/** The same, as a jsonb array in a column of a statement reading a run (the worker's claim); `run` names the run's row. */
export const rememberedToolsOfRun = (run: Prisma.Sql) => Prisma.sql`
  (SELECT COALESCE(jsonb_agg(DISTINCT tool_name), '[]'::jsonb) FROM platform_permission_requests
   WHERE run_id = ${run}.id AND remember AND status = 'allowed' AND kind = 'tool')`;

export const resolveRequest = (
  prisma: PrismaClient,
  id: string,
  outcome: { status: "allowed" | "denied"; remember?: boolean; answer?: unknown },
) =>
  prisma.platformPermissionRequest.update({
    where: { id },
    data: {
      status: outcome.status,
      remember: outcome.remember ?? false,
      ...(outcome.answer !== undefined ? { answer: outcome.answer as Prisma.InputJsonValue } : {}),
      resolvedAt: new Date(),
    },
  });

/** Drops the stored answers of the run's requests (metadata_only, once the run has read them). */
export const clearAnswers = (prisma: PrismaClient, runId: number) =>
  prisma.platformPermissionRequest.updateMany({ where: { runId, answer: { not: Prisma.DbNull } }, data: { answer: Prisma.DbNull } });

/**
 * The pending connection requests of a scope's runs for one app: a connection of that app completed
 * in the scope, so they are settled. Only runs still waiting (awaiting_approval) are returned.
 */
export const pendingConnectionRequests = (prisma: PrismaClient, scope: { accountId: number; endUserId: number | null }, app: string) =>
  prisma.platformPermissionRequest.findMany({
    where: {
      kind: "connection",
      app,
      status: "pending",
      run: { accountId: scope.accountId, endUserId: scope.endUserId, status: "awaiting_approval" },
    },
    select: { id: true, runId: true, toolName: true, input: true, run: { select: { permissionMode: true, interactive: true } } },
  });

/** A connection request whose app is now connected turns into the call's own approval, still pending. */
export const askApprovalInstead = (prisma: PrismaClient, id: string) =>
  prisma.platformPermissionRequest.update({ where: { id }, data: { kind: "tool" } });
