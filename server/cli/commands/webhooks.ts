// webhooks dead | webhooks retry: deliveries that gave up after the retry schedule, listed and sent again.
import { listFailedDeliveries, retryFailedDeliveries, type FailedDelivery } from "@/server/platform/services/webhooks/webhooks";
import { count, id, UsageError } from "../args";
import { command, type ParsedArgs, str } from "../command";
import { oneLine, table } from "../output";

const selection = {
  account: { type: "string", value: "ID", description: "only this account's webhooks" },
  webhook: { type: "string", value: "ID", description: "only this webhook's deliveries" },
} as const;

function filterOf({ values }: ParsedArgs, defaultLimit: number) {
  const account = str(values.account);
  const webhook = str(values.webhook);
  const deliveries = Array.isArray(values.delivery) ? values.delivery : [];
  return {
    accountId: account === undefined ? undefined : id("account", account),
    webhookId: webhook === undefined ? undefined : id("webhook", webhook),
    deliveryIds: deliveries.length === 0 ? undefined : deliveries.map((each) => id("delivery", each)),
    limit: count("limit", str(values.limit) ?? String(defaultLimit), 1, 100_000),
  };
}

const rows = (deliveries: FailedDelivery[]) =>
  deliveries.map((delivery) => [delivery.id, delivery.webhook_id, delivery.account_id, delivery.event_type, delivery.attempts, delivery.failed_at, oneLine(delivery.error ?? "-", 80)]);
const HEADERS = ["delivery", "webhook", "account", "event", "attempts", "failed at", "error"];

export const dead = command({
  name: "webhooks dead",
  usage: "[--account ID] [--webhook ID] [--limit 50]",
  summary: "List webhook deliveries that gave up (every attempt of the retry schedule failed, or the webhook was off)",
  options: { ...selection, limit: { type: "string", value: "N", description: "at most this many, oldest first (default 50)" } },
  parse: (args) => filterOf(args, 50),
  async run(ctx, filter) {
    const deliveries = await listFailedDeliveries(ctx.prisma, filter);
    return { json: deliveries, text: deliveries.length === 0 ? "no dead deliveries" : table(HEADERS, rows(deliveries)) };
  },
});

export const retry = command({
  name: "webhooks retry",
  usage: "(--delivery ID ... | --webhook ID | --account ID | --all) [--limit 1000]",
  summary: "Send dead webhook deliveries again: one more attempt each, now, by the platform's workers",
  details:
    "Each delivery is made due again and its next attempt enqueued, as POST /webhooks/{id}/deliveries/{id}/retry does;\n" +
    "a running platform's workers send it. Deliveries of a paused or disabled webhook are skipped: turn it back on first\n" +
    "(PATCH /webhooks/{id} with active=true). Exits 1 when some were skipped.",
  options: {
    ...selection,
    delivery: { type: "string", multiple: true, value: "ID", description: "this delivery (repeatable)" },
    all: { type: "boolean", description: "every dead delivery" },
    limit: { type: "string", value: "N", description: "at most this many, oldest first (default 1000)" },
  },
  parse(args) {
    const filter = filterOf(args, 1000);
    const narrowed = filter.accountId !== undefined || filter.webhookId !== undefined || filter.deliveryIds !== undefined;
    // Retrying everything is a deliberate act, never the default of a forgotten option.
    if (narrowed === (args.values.all === true)) throw new UsageError("name what to retry: --delivery, --webhook or --account, or else --all");
    return filter;
  },
  async run(ctx, filter) {
    const { retried, skipped } = await retryFailedDeliveries({ prisma: ctx.prisma, jobs: await ctx.jobs() }, filter);
    const lines = [
      retried.length === 0 ? "no dead delivery to retry" : `queued ${retried.length} ${retried.length === 1 ? "delivery" : "deliveries"} for one more attempt: ${retried.map((each) => each.id).join(", ")}`,
      ...skipped.map((each) => `skipped delivery ${each.id}: ${each.reason}`),
    ];
    return { json: { retried, skipped }, text: lines.join("\n"), exitCode: skipped.length > 0 ? 1 : 0 };
  },
});
