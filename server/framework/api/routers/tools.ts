// tools: the tool servers and skills a tenant's admins define for their members (server/framework/tenancy/
// tenant-tools.ts). Members never call these: their copies are made when they next start a run.
import { z } from "zod";
import { idInput } from "@inlay/core/schemas/console";
import { IdOutput } from "@inlay/core/schemas/tenancy";
import {
  TenantSkillView,
  TenantToolServerView,
  tenantSkillInput,
  tenantSkillUpdateInput,
  tenantToolServerInput,
  tenantToolServerUpdateInput,
} from "@inlay/core/schemas/tenant-tools";
import {
  createSkill,
  createToolServer,
  deleteSkill,
  deleteToolServer,
  listSkills,
  listToolServers,
  updateSkill,
  updateToolServer,
} from "@/server/framework/tenancy/tenant-tools";
import { adminProcedure, router } from "../trpc";
import { callerOf } from "./agents";

export const toolsRouter = router({
  servers: adminProcedure.output(z.array(TenantToolServerView)).query(async ({ ctx }) => listToolServers(ctx.prisma, await ctx.platform(), callerOf(ctx))),

  createServer: adminProcedure
    .input(tenantToolServerInput)
    .output(TenantToolServerView)
    .mutation(async ({ ctx, input }) => createToolServer(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  updateServer: adminProcedure
    .input(tenantToolServerUpdateInput)
    .output(TenantToolServerView)
    .mutation(async ({ ctx, input }) => updateToolServer(ctx.prisma, await ctx.platform(), callerOf(ctx), input.id, input.server)),

  deleteServer: adminProcedure.input(idInput).output(IdOutput).mutation(async ({ ctx, input }) => {
    await deleteToolServer(ctx.prisma, await ctx.connection(), callerOf(ctx), input.id);
    return { id: input.id };
  }),

  skills: adminProcedure.output(z.array(TenantSkillView)).query(({ ctx }) => listSkills(ctx.prisma, callerOf(ctx))),

  createSkill: adminProcedure.input(tenantSkillInput).output(TenantSkillView).mutation(async ({ ctx, input }) => createSkill(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  updateSkill: adminProcedure
    .input(tenantSkillUpdateInput)
    .output(TenantSkillView)
    .mutation(async ({ ctx, input }) => updateSkill(ctx.prisma, await ctx.platform(), callerOf(ctx), input.id, input.skill)),

  deleteSkill: adminProcedure.input(idInput).output(IdOutput).mutation(async ({ ctx, input }) => {
    await deleteSkill(ctx.prisma, await ctx.connection(), callerOf(ctx), input.id);
    return { id: input.id };
  }),
});
