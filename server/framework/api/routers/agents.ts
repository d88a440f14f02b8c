// agents: the tenant's agents (admins define them) and members' personal ones (where the tenant
// allows). Each member runs their own copy, provisioned in their platform scope on first use.
import { z } from "zod";
import { PersonalAgentsSetting, TenantAgentList, TenantAgentView, agentScope, idInput, tenantAgentInput } from "@inlay/core/schemas/console";
import { IdOutput } from "@inlay/core/schemas/tenancy";
import { archiveAgent, createAgent, getAgent, listAgents, setPersonalAgentsAllowed, updateAgent } from "@/server/framework/tenancy/agents";
import { adminProcedure, router, tenantProcedure } from "../trpc";

const callerOf = (ctx: { tenant: { id: string }; userId: string; role: "member" | "admin" }) => ({
  tenantId: ctx.tenant.id,
  userId: ctx.userId,
  role: ctx.role,
});

export const agentsRouter = router({
  list: tenantProcedure.output(TenantAgentList).query(({ ctx }) => listAgents(ctx.prisma, callerOf(ctx))),

  get: tenantProcedure.input(idInput).output(TenantAgentView).query(({ ctx, input }) => getAgent(ctx.prisma, callerOf(ctx), input.id)),

  create: tenantProcedure
    .input(z.object({ scope: agentScope, agent: tenantAgentInput }))
    .output(TenantAgentView)
    .mutation(({ ctx, input }) => createAgent(ctx.prisma, callerOf(ctx), input.scope, input.agent)),

  update: tenantProcedure
    .input(z.object({ id: z.uuid(), agent: tenantAgentInput }))
    .output(TenantAgentView)
    .mutation(({ ctx, input }) => updateAgent(ctx.prisma, callerOf(ctx), input.id, input.agent)),

  archive: tenantProcedure.input(idInput).output(IdOutput).mutation(async ({ ctx, input }) => {
    await archiveAgent(ctx.prisma, callerOf(ctx), input.id);
    return { id: input.id };
  }),

  /** The tenant setting: may members define personal agents? */
  setPersonalAllowed: adminProcedure.input(PersonalAgentsSetting).output(PersonalAgentsSetting).mutation(async ({ ctx, input }) => {
    await setPersonalAgentsAllowed(ctx.prisma, ctx.tenant.id, input.allow);
    return input;
  }),
});

export { callerOf };
