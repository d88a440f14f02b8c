// Liveness of the Next.js app (server/framework/health.ts).
import { answerProbe } from "@/server/framework/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = answerProbe;
