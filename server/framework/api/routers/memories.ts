// memories: what the member's agents remember about them (their own only).
import { z } from "zod";
import { IntIdOutput, MemoryView } from "@inlay/core/schemas/console";
import { deleteMyMemory, listMyMemories } from "@/server/framework/tenancy/member-data";
import { router, tenantProcedure } from "../trpc";

export const memoriesRouter = router({
  list: tenantProcedure.output(z.array(MemoryView)).query(async ({ ctx }) => listMyMemories(await ctx.platform())),
  delete: tenantProcedure.input(z.object({ id: z.number().int().positive() })).output(IntIdOutput).mutation(async ({ ctx, input }) => {
    await deleteMyMemory(await ctx.platform(), input.id);
    return input;
  }),
});
