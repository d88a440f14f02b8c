// accounts.create: sign-up with email and password, which creates a tenant with the new user as its
// first admin. The browser then signs in through next-auth's credentials provider.
import { signUpInput } from "@/lib/schemas/tenancy";
import { signUp } from "@/server/auth/sign-up";
import { publicProcedure, router } from "../trpc";

export const accountsRouter = router({
  create: publicProcedure.input(signUpInput).mutation(async ({ ctx, input }) => {
    const { user, tenant } = await signUp(ctx.prisma, input);
    return { user: { id: user.id, email: user.email, name: user.name }, tenant };
  }),
});
