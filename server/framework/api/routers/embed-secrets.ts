// embedSecrets: tenant admins' secrets for minting embed tokens from their own backend
// (POST /api/embed/sessions). The full secret is in create's and rotate's answer only.
import { z } from "zod";
import { EmbedSecretCreated, EmbedSecretRotated, EmbedSecretView, createEmbedSecretInput, rotateEmbedSecretInput } from "@inlay/core/schemas/embed";
import { createEmbedSecret, listEmbedSecrets, revokeEmbedSecret, rotateEmbedSecret } from "@/server/framework/embed/secrets";
import { adminProcedure, router } from "../trpc";

export const embedSecretsRouter = router({
  list: adminProcedure.output(z.array(EmbedSecretView)).query(({ ctx }) => listEmbedSecrets(ctx.prisma, ctx.tenant.id)),

  create: adminProcedure
    .input(createEmbedSecretInput)
    .output(EmbedSecretCreated)
    .mutation(({ ctx, input }) => createEmbedSecret(ctx.prisma, ctx.tenant.id, { name: input.name, createdById: ctx.userId })),

  rotate: adminProcedure
    .input(rotateEmbedSecretInput)
    .output(EmbedSecretRotated)
    .mutation(({ ctx, input }) => rotateEmbedSecret(ctx.prisma, ctx.tenant.id, { ...input, createdById: ctx.userId })),

  revoke: adminProcedure.input(z.object({ id: z.uuid() })).output(EmbedSecretView).mutation(({ ctx, input }) => revokeEmbedSecret(ctx.prisma, ctx.tenant.id, input.id)),
});
