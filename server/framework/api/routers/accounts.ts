// accounts.create: sign-up with email and password, as the owner's sign-up setting allows: open creates
// a tenant with the new user as its first admin (the browser then signs in through next-auth's
// credentials provider); approval holds it for the owner (status pending); closed is FORBIDDEN.
import { SignUpResult, signUpInput } from "@inlay/core/schemas/tenancy";
import { signUp } from "@/server/framework/auth/sign-up";
import { pushPlatformBackstops } from "@/server/framework/tenancy/backstops";
import { publicProcedure, router } from "../trpc";

export const accountsRouter = router({
  create: publicProcedure.input(signUpInput).output(SignUpResult).mutation(async ({ ctx, input }) => {
    const result = await signUp(ctx.prisma, input);
    if (result.status === "pending") return { status: "pending" as const };
    const { user, tenant } = result;
    // The new workspace's limits count in the platform's account-wide backstops.
    if (ctx.platformConnection) await pushPlatformBackstops(ctx.prisma, ctx.platformConnection);
    return { status: "created" as const, user: { id: user.id, email: user.email, name: user.name }, tenant };
  }),
});
