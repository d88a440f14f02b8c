// runs: a member's runs on their copies of the tenant's agents. Starting one (and replying) passes
// the tenant's limits and the member's cap first; a refusal is TOO_MANY_REQUESTS naming the limit.
import { z } from "zod";
import {
  ConsoleRun,
  ConsoleRunPage,
  runAnswerInput,
  runApproveInput,
  runCreateInput,
  runIdInput,
  runListInput,
  runReplyInput,
} from "@inlay/core/schemas/console";
import { AnswerResult, ApprovalResult, PermissionRequest } from "@inlay/core/schemas/runs";
import { answerRun, approveRun, cancelRun, createRun, getRun, listPermissionRequests, listRuns, replyRun } from "@/server/framework/tenancy/runs";
import { RunDetail, RunRows, runViewInput, runViewListInput } from "@inlay/core/schemas/run-view";
import { getRunDetail, listMemberRuns } from "@/server/framework/tenancy/run-view";
import { router, tenantProcedure } from "../trpc";
import { callerOf } from "./agents";

export const runsRouter = router({
  create: tenantProcedure
    .input(runCreateInput)
    .output(ConsoleRun)
    .mutation(async ({ ctx, input }) => createRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  list: tenantProcedure
    .input(runListInput)
    .output(ConsoleRunPage)
    .query(async ({ ctx, input }) => listRuns(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  get: tenantProcedure.input(runIdInput).output(ConsoleRun).query(async ({ ctx, input }) => getRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input.runId)),

  cancel: tenantProcedure
    .input(runIdInput)
    .output(ConsoleRun)
    .mutation(async ({ ctx, input }) => cancelRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input.runId)),

  reply: tenantProcedure
    .input(runReplyInput)
    .output(ConsoleRun)
    .mutation(async ({ ctx, input }) => replyRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  answer: tenantProcedure
    .input(runAnswerInput)
    .output(AnswerResult)
    .mutation(async ({ ctx, input }) => answerRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  approve: tenantProcedure
    .input(runApproveInput)
    .output(ApprovalResult)
    .mutation(async ({ ctx, input }) => approveRun(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  /** One run as the run view shows it: its owner's, or any tenant member's for an admin. */
  detail: tenantProcedure
    .input(runViewInput)
    .output(RunDetail)
    .query(async ({ ctx, input }) => getRunDetail(ctx.prisma, await ctx.connection(), callerOf(ctx), input.runId)),

  /** A member's runs however they started (chat, console, schedule), newest first. */
  history: tenantProcedure
    .input(runViewListInput)
    .output(RunRows)
    .query(async ({ ctx, input }) => listMemberRuns(ctx.prisma, await ctx.connection(), callerOf(ctx), input)),

  /** The run's permission requests (tool approvals and questions). */
  permissions: tenantProcedure
    .input(runIdInput)
    .output(z.array(PermissionRequest))
    .query(async ({ ctx, input }) => listPermissionRequests(ctx.prisma, await ctx.platform(), callerOf(ctx), input.runId)),
});
