// The development demo app's consent page and its answer (server/framework/demo-app/demo-app.ts); 404 outside development.
import { authorizeDecision, authorizePage, demoAppEnabled } from "@/server/framework/demo-app/demo-app";
import { demoAppDeps } from "@/server/framework/demo-app/demo-app-deps";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  if (!demoAppEnabled()) return new Response("Not found", { status: 404 });
  return authorizePage(request, await demoAppDeps());
}

export async function POST(request: Request) {
  if (!demoAppEnabled()) return new Response("Not found", { status: 404 });
  return authorizeDecision(request, await demoAppDeps());
}
