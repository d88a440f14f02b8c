// invites: tenant admins create, list and revoke invites; whoever holds an invite link can read it
// and accept it (signed in as the invited email, or creating that account).
import { z } from "zod";
import {
  IdOutput,
  InviteAccepted,
  InviteCreated,
  InviteDescription,
  InviteView,
  acceptInviteInput,
  createInviteInput,
  inviteTokenSchema,
} from "@inlay/core/schemas/tenancy";
import { acceptInvite, createInvite, describeInvite, listInvites, revokeInvite } from "@/server/framework/tenancy/invites";
import { adminProcedure, publicProcedure, router } from "../trpc";

export const invitesRouter = router({
  create: adminProcedure.input(createInviteInput).output(InviteCreated).mutation(({ ctx, input }) =>
    createInvite(ctx.prisma, {
      tenant: ctx.tenant,
      invitedById: ctx.userId,
      email: input.email,
      role: input.role,
      baseUrl: ctx.baseUrl ?? "http://localhost:3000",
    }),
  ),

  list: adminProcedure.output(z.array(InviteView)).query(({ ctx }) => listInvites(ctx.prisma, ctx.tenant.id)),

  revoke: adminProcedure.input(z.object({ id: z.uuid() })).output(IdOutput).mutation(async ({ ctx, input }) => {
    await revokeInvite(ctx.prisma, ctx.tenant.id, input.id);
    return { id: input.id };
  }),

  get: publicProcedure
    .input(z.object({ token: inviteTokenSchema }))
    .output(InviteDescription)
    .query(({ ctx, input }) => describeInvite(ctx.prisma, input.token)),

  accept: publicProcedure.input(acceptInviteInput).output(InviteAccepted).mutation(({ ctx, input }) =>
    acceptInvite(ctx.prisma, {
      token: input.token,
      userId: ctx.session?.user.id,
      account: input.account,
    }),
  ),
});
