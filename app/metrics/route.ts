// GET /metrics: the app's Prometheus metrics (inlay_app_*) and, with the embedded platform, the
// platform's (inlay_*), in one scrape; behind INLAY_METRICS_TOKEN as the platform's, not found without
// it (server/framework/health.ts).
import { answerProbe } from "@/server/framework/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = answerProbe;
