// Runs that paused because they needed an app the person had not connected (or whose connection
// expired): a connection of that app completing in the run's scope lets them go on by themselves,
// unless the call also needs the person's approval (approval mode): then connecting only answers the
// connection, and the same request asks for the call's approval next (services/runs/tool-approval.ts).
import type { RunFrame } from "@inlay/core/schemas/runs";
import { askApprovalInstead, pendingConnectionRequests, rememberedTools, resolveRequest } from "../../repositories/permission-requests";
import { listPermissionsForEndUser } from "../../repositories/permissions";
import { needsApproval } from "../runs/tool-approval";
import { emit, resumeIfSettled } from "../runs/runs";
import type { RunServiceContext } from "../runs/run-context";
import type { Scope } from "../scope";

/** Settles the scope's connection requests for `app` and resumes the runs with nothing else pending. */
export async function resumeRunsAwaitingApp(
  ctx: RunServiceContext,
  scope: Pick<Scope, "accountId" | "endUserId">,
  app: string,
): Promise<number[]> {
  const requests = await pendingConnectionRequests(ctx.prisma, scope, app);
  if (requests.length === 0) return [];
  const allowList = scope.endUserId !== null ? await listPermissionsForEndUser(ctx.prisma, scope.accountId, scope.endUserId) : new Set<string>();
  const runIds = new Set<number>();
  for (const request of requests) {
    const grants = { allowList, remembered: await rememberedTools(ctx.prisma, request.runId) };
    if (needsApproval(request.run, grants, request.toolName)) {
      await askApprovalInstead(ctx.prisma, request.id);
      const frame: RunFrame = { type: "permission_request", request_id: request.id, tool_name: request.toolName, input: request.input, kind: "tool" };
      await emit(ctx, request.runId, [frame]);
      continue;
    }
    await resolveRequest(ctx.prisma, request.id, { status: "allowed" });
    runIds.add(request.runId);
  }
  for (const runId of runIds) await resumeIfSettled(ctx, runId);
  return [...runIds];
}
