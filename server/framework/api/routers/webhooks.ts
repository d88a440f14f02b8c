// webhooks: the installation owner's endpoints for the platform's run events, on the framework's own
// platform account at the account level (no user_id); their deliveries, a manual retry, a replay and a
// test event.
// Thin: each procedure is one platform call; PlatformApiErrors become TRPCErrors in trpc.ts.
import { z } from "zod";
import { PageQuery } from "@inlay/core/schemas/common";
import {
  CreateWebhookRequest,
  ListWebhookDeliveriesQuery,
  ReplayWebhookRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookReplay,
} from "@inlay/core/schemas/webhooks";
import { ledgerWebhookId } from "@/server/framework/tenancy/run-ledger-webhook";
import { ownerProcedure, router } from "../trpc";

const webhookId = z.object({ webhookId: z.number().int().positive() });
const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), has_more: z.boolean() });

export const webhooksRouter = router({
  /** Every endpoint, oldest first; secrets masked. Not the framework's own (its run ledger's). */
  list: ownerProcedure.output(z.array(Webhook)).query(async ({ ctx }) => {
    const [hooks, own] = await Promise.all([(await ctx.connection()).client.webhooks.listAll(), ledgerWebhookId(ctx.prisma)]);
    return hooks.filter((hook) => hook.id !== own);
  }),

  /**
   * Registers an endpoint for every run of the installation (all_end_users: each member's runs are an
   * end-user's); the answer's secret is the only time it is shown in full.
   */
  create: ownerProcedure
    .input(CreateWebhookRequest.omit({ user_id: true, all_end_users: true }))
    .output(Webhook)
    .mutation(async ({ ctx, input }) => (await ctx.connection()).client.webhooks.create({ ...input, all_end_users: true })),

  /** URL, events, or active (false pauses; true resumes and re-enables one delivery disabled). */
  update: ownerProcedure
    .input(webhookId.extend(UpdateWebhookRequest.pick({ url: true, events: true, active: true }).shape))
    .output(Webhook)
    .mutation(async ({ ctx, input: { webhookId, ...changes } }) => (await ctx.connection()).client.webhooks.update(webhookId, changes)),

  /** A new secret, shown once; the previous one keeps signing for 24 hours so receivers can switch. */
  rotateSecret: ownerProcedure
    .input(webhookId)
    .output(Webhook)
    .mutation(async ({ ctx, input }) => (await ctx.connection()).client.webhooks.update(input.webhookId, { rotate_secret: true })),

  delete: ownerProcedure.input(webhookId).output(webhookId).mutation(async ({ ctx, input }) => {
    await (await ctx.connection()).client.webhooks.delete(input.webhookId);
    return { webhookId: input.webhookId };
  }),

  /** One page of deliveries, newest first, each with its attempts; `cursor` is the last delivery's id. */
  deliveries: ownerProcedure
    .input(
      webhookId.extend({
        limit: PageQuery.shape.limit.unwrap().optional(),
        cursor: z.number().int().positive().optional(),
        status: ListWebhookDeliveriesQuery.shape.status,
      }),
    )
    .output(page(WebhookDelivery).extend({ nextCursor: z.number().int().nullable() }))
    .query(async ({ ctx, input }) => {
      const { data, has_more } = await (await ctx.connection()).client.webhooks.deliveries(input.webhookId, {
        limit: input.limit,
        starting_after: input.cursor,
        status: input.status,
      });
      return { data, has_more, nextCursor: has_more ? (data.at(-1)?.id ?? null) : null };
    }),

  /** One more attempt of a finished delivery, now. */
  retryDelivery: ownerProcedure
    .input(webhookId.extend({ deliveryId: z.number().int().positive() }))
    .output(WebhookDelivery)
    .mutation(async ({ ctx, input }) => (await ctx.connection()).client.webhooks.retryDelivery(input.webhookId, input.deliveryId)),

  /** The events since `since` (and before `until`, default now) delivered again. */
  replay: ownerProcedure
    .input(webhookId.extend(ReplayWebhookRequest.shape))
    .output(WebhookReplay)
    .mutation(async ({ ctx, input: { webhookId, ...window } }) => (await ctx.connection()).client.webhooks.replay(webhookId, window)),

  /** A webhook.test event to this endpoint now (one attempt): the answer is its pending delivery. */
  sendTest: ownerProcedure
    .input(webhookId)
    .output(WebhookDelivery)
    .mutation(async ({ ctx, input }) => (await ctx.connection()).client.webhooks.sendTest(input.webhookId)),
});
