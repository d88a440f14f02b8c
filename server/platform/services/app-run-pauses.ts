// Runs that paused because they needed an app the person had not connected (or whose connection
// expired): a connection of that app completing in the run's scope lets them go on by themselves.
import { findUsableConnections } from "../repositories/app-connections";
import { pendingConnectionRequests, resolveRequest } from "../repositories/permission-requests";
import { resumeIfSettled, type RunServiceContext } from "./runs";
import type { Scope } from "./scope";

/** Settles the scope's connection requests for `app` and resumes the runs with nothing else pending. */
export async function resumeRunsAwaitingApp(
  ctx: RunServiceContext,
  scope: Pick<Scope, "accountId" | "endUserId">,
  app: string,
): Promise<number[]> {
  const requests = await pendingConnectionRequests(ctx.prisma, scope, app);
  const runIds = new Set<number>();
  for (const request of requests) {
    await resolveRequest(ctx.prisma, request.id, { status: "allowed" });
    runIds.add(request.runId);
  }
  for (const runId of runIds) await resumeIfSettled(ctx, runId);
  return [...runIds];
}

/** Whether the run's scope has an active connection of `app` granted to the run's agent. */
export async function hasActiveConnection(
  prisma: RunServiceContext["prisma"],
  run: { accountId: number; endUserId: number | null; agentId: number },
  app: string,
): Promise<boolean> {
  const rows = await findUsableConnections(prisma, { accountId: run.accountId, endUserId: run.endUserId }, run.agentId);
  return rows.some((row) => row.app === app && row.status === "active");
}
