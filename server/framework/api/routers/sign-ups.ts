// signUps: the installation owner's control over open sign-up: the setting (open, approval, closed)
// and the sign-ups held for approval, approved (the user and their workspace are made) or rejected.
import { z } from "zod";
import { IdOutput, SignUpApproved, SignUpModeOutput, SignUpRequestRow, signUpModeSchema } from "@inlay/core/schemas/tenancy";
import { pushPlatformBackstops } from "@/server/framework/tenancy/backstops";
import { approveSignUp, getSignUpMode, listSignUpRequests, rejectSignUp, setSignUpMode } from "@/server/framework/tenancy/sign-ups";
import { ownerProcedure, router } from "../trpc";

const requestId = z.object({ id: z.uuid() });

export const signUpsRouter = router({
  mode: ownerProcedure.output(SignUpModeOutput).query(async ({ ctx }) => ({ mode: await getSignUpMode(ctx.prisma) })),

  setMode: ownerProcedure
    .input(z.object({ mode: signUpModeSchema }))
    .output(SignUpModeOutput)
    .mutation(async ({ ctx, input }) => ({ mode: await setSignUpMode(ctx.prisma, input.mode) })),

  list: ownerProcedure.output(z.array(SignUpRequestRow)).query(({ ctx }) => listSignUpRequests(ctx.prisma)),

  approve: ownerProcedure.input(requestId).output(SignUpApproved).mutation(async ({ ctx, input }) => {
    const { user, tenant } = await approveSignUp(ctx.prisma, input.id, { signInUrl: `${ctx.baseUrl ?? ""}/signin` });
    // The new workspace's limits count in the platform's account-wide backstops.
    await pushPlatformBackstops(ctx.prisma, ctx.connection);
    return { email: user.email, tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug } };
  }),

  reject: ownerProcedure.input(requestId).output(IdOutput).mutation(async ({ ctx, input }) => {
    await rejectSignUp(ctx.prisma, input.id);
    return input;
  }),
});
