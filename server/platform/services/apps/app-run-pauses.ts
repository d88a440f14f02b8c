// Runs that paused because they needed an app the person had not connected (or whose connection
// expired): a connection of that app completing in the run's scope lets them go on by themselves.
import { pendingConnectionRequests, resolveRequest } from "../../repositories/permission-requests";
import { resumeIfSettled } from "../runs/runs";
import type { RunServiceContext } from "../runs/run-context";
import type { Scope } from "../scope";

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
