// permissions: the member's own "always allow" tool grants.
import { z } from "zod";
import { listMyGrants, revokeMyGrant } from "@/server/framework/tenancy/member-data";
import { router, tenantProcedure } from "../trpc";

export const permissionsRouter = router({
  list: tenantProcedure.query(async ({ ctx }) => listMyGrants(await ctx.platform())),
  revoke: tenantProcedure.input(z.object({ id: z.number().int().positive() })).mutation(async ({ ctx, input }) => {
    await revokeMyGrant(await ctx.platform(), input.id);
    return input;
  }),
});
