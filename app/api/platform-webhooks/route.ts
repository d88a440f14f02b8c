// POST /api/platform-webhooks: the platform's signed run.* deliveries to the framework's run ledger
// (server/framework/tenancy/run-ledger-webhook.ts). 401 for a delivery that does not verify (the platform
// retries; a forger learns nothing), 200 once the run's turns are settled or the event is not one the
// ledger settles on.
import { handleRoute } from "@/server/framework/http/route-member";
import { getPlatformConnection } from "@/server/framework/platform";
import { ledgerWebhookResponse } from "@/server/framework/tenancy/run-ledger-webhook";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = timedRoute("/api/platform-webhooks", (request: Request) => handleRoute(() => ledgerWebhookResponse(request, getPlatformConnection)));
