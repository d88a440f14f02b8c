// The development demo app's token endpoint (server/framework/demo-app/demo-app.ts); 404 outside development.
import { demoAppEnabled, tokenEndpoint } from "@/server/framework/demo-app/demo-app";
import { demoAppDeps } from "@/server/framework/demo-app/demo-app-deps";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  if (!demoAppEnabled()) return new Response("Not found", { status: 404 });
  return tokenEndpoint(request, await demoAppDeps());
}
