// POST /api/platform-webhooks: the platform's signed run.* deliveries to the framework's run ledger
// (server/tenancy/run-ledger-webhook.ts). 401 for a delivery that does not verify (the platform
// retries; a forger learns nothing), 200 once the run's turns are settled or the event is not one the
// ledger settles on.
import { getDb } from "@/server/db";
import { handleRoute, RouteError, routeJson } from "@/server/http/route-member";
import { getPlatformConnection } from "@/server/tenancy/platform-connection";
import { receiveLedgerWebhook } from "@/server/tenancy/run-ledger-webhook";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = (request: Request) =>
  handleRoute(async () => {
    const { prisma } = await getDb();
    const delivery = await receiveLedgerWebhook(prisma, await getPlatformConnection(prisma), await request.text(), request.headers);
    if (delivery.outcome === "rejected") throw new RouteError(401, delivery.reason, { code: "webhook_not_verified" });
    return routeJson({ received: delivery.outcome, settled: delivery.settled });
  });
