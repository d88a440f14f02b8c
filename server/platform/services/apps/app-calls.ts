// One call of an app's tool with a connection's credentials: the request the tool's definition
// describes (apps/app-http.ts), the connection's headers (refreshed ahead of expiry), and once more
// after a 401 with a refreshed token. Runs' tools and app-trigger polls both call apps through here.
import { logger } from "@/lib/logger";
import { AppToolInputError, buildAppRequest, OutboundError, sendAppRequest } from "../../apps/app-http";
import { appMayUseLoopback, type AppDefinition, type AppToolDefinition } from "../../apps/definition";
import { authorizationFor, type CredentialContext, refreshAfterUnauthorized } from "./app-credentials";

export type AppCallOutcome =
  | { ok: true; status: number; body: unknown; truncated: boolean }
  | { ok: false; error: string; status?: number; body?: unknown };

const bearerOf = (headers: Record<string, string>) => {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === "authorization")?.[1] ?? "";
  return value.replace(/^Bearer\s+/i, "");
};

export async function callAppTool(
  ctx: CredentialContext,
  app: AppDefinition,
  tool: AppToolDefinition,
  input: Record<string, unknown>,
  connectionId: string,
): Promise<AppCallOutcome> {
  let auth = await authorizationFor(ctx, connectionId);
  if (!auth.ok) return { ok: false, error: `${app.name} connection is ${auth.status}: ${auth.message}` };
  const options = { allowLoopback: appMayUseLoopback(ctx.config, app) };
  try {
    const request = buildAppRequest(auth.baseUrl, tool, input);
    let result = await sendAppRequest(request, auth.headers, options);
    if (result.status === 401) {
      // The app refused the token before its expiry (revoked, rotated): refresh once and try again.
      auth = await refreshAfterUnauthorized(ctx, connectionId, bearerOf(auth.headers));
      if (!auth.ok) return { ok: false, error: `${app.name} connection is ${auth.status}: ${auth.message}` };
      result = await sendAppRequest(request, auth.headers, options);
    }
    if (result.status >= 400) return { ok: false, error: `${app.name} answered HTTP ${result.status}`, status: result.status, body: result.body };
    return { ok: true, ...result };
  } catch (error) {
    if (error instanceof AppToolInputError || error instanceof OutboundError) return { ok: false, error: error.message };
    logger.warn({ err: error, app: app.slug, tool: tool.name }, "app tool call failed");
    return { ok: false, error: `${app.name} could not be reached` };
  }
}
