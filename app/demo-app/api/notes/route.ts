// The development demo app's notes API (server/framework/demo-app/demo-app.ts); 404 outside development.
import { createNoteEndpoint, demoAppEnabled, listNotesEndpoint } from "@/server/framework/demo-app/demo-app";
import { demoAppDeps } from "@/server/framework/demo-app/demo-app-deps";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  if (!demoAppEnabled()) return new Response("Not found", { status: 404 });
  return listNotesEndpoint(request, await demoAppDeps());
}

export async function POST(request: Request) {
  if (!demoAppEnabled()) return new Response("Not found", { status: 404 });
  return createNoteEndpoint(request, await demoAppDeps());
}
