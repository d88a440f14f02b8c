// Readiness of the Next.js app: its database and migrations, the platform with its key, the run
// ledger's webhook, and the embedded platform's runtime and worker when it runs one
// (server/framework/health.ts). 503 naming what failed.
import { answerProbe } from "@/server/framework/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = answerProbe;
