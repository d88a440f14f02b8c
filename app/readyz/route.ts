// Readiness of the Next.js app: its database and migrations, and the embedded platform's runtime
// and worker when it runs one (server/framework/health.ts).
import { frameworkHealth } from "@/server/framework/health";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = async (request: Request) => (await frameworkHealth().answer(request))!;
