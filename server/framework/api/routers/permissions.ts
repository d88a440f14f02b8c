// permissions: the member's own "always allow" tool grants.
import { z } from "zod";
import { GrantView, IntIdOutput } from "@inlay/core/schemas/console";
import { listMyGrants, revokeMyGrant } from "@/server/framework/tenancy/member-data";
import { router, tenantProcedure } from "../trpc";

export const permissionsRouter = router({
  list: tenantProcedure.output(z.array(GrantView)).query(async ({ ctx }) => listMyGrants(await ctx.platform())),
  revoke: tenantProcedure.input(z.object({ id: z.number().int().positive() })).output(IntIdOutput).mutation(async ({ ctx, input }) => {
    await revokeMyGrant(await ctx.platform(), input.id);
    return input;
  }),
});
