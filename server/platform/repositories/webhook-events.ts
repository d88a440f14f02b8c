// The webhook outbox (platform_webhook_events): one row per run event a webhook may deliver. Rows are
// written beside the change they report; delivery is the webhooks work's (docs/platform-api.md).
import type { PrismaClient } from "@/server/generated/prisma/client";
import { type Prisma } from "@/server/generated/prisma/client";

export interface NewWebhookEvent {
  accountId: number;
  endUserId: number | null;
  runId: number;
  type: string;
  payload: Prisma.InputJsonObject;
}

export const insertWebhookEvent = (prisma: PrismaClient, event: NewWebhookEvent) =>
  prisma.platformWebhookEvent.create({ data: event });
