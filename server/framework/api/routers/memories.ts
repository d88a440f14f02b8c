// memories: what the member's agents remember about them (their own only).
import { z } from "zod";
import { deleteMyMemory, listMyMemories } from "@/server/framework/tenancy/member-data";
import { router, tenantProcedure } from "../trpc";

export const memoriesRouter = router({
  list: tenantProcedure.query(async ({ ctx }) => listMyMemories(await ctx.platform())),
  delete: tenantProcedure.input(z.object({ id: z.number().int().positive() })).mutation(async ({ ctx, input }) => {
    await deleteMyMemory(await ctx.platform(), input.id);
    return input;
  }),
});
