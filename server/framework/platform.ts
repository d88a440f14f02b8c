// The framework's connection to its platform, made once per process from the environment: a remote
// platform (PLATFORM_BASE_URL), or the embedded one, loaded only then. The one place that knows both the
// embedded platform and the framework's run ledger, whose webhooks that platform hands over in-process
// while the ledger reads runs through this connection.
import { env } from "@/lib/env";
import type { Db } from "@/server/shared/db";
import { handleRoute } from "@/server/framework/http/route-member";
import { recordPlatformCall } from "@/server/framework/observability/metrics";
import { connectEmbedded, connectRemote, type PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { ledgerWebhookResponse, ledgerWebhookUrl } from "@/server/framework/tenancy/run-ledger-webhook";
import { frameworkSecrets } from "@/server/framework/tenancy/sealing";

const globalForConnection = globalThis as unknown as { inlayPlatformConnection?: Promise<PlatformConnection> };

/** This process's connection, from the environment; made once (and again after a failure). */
export function getPlatformConnection(prisma: Db): Promise<PlatformConnection> {
  if (!globalForConnection.inlayPlatformConnection) {
    const pending = connectFromEnv(prisma);
    globalForConnection.inlayPlatformConnection = pending;
    pending.catch(() => {
      if (globalForConnection.inlayPlatformConnection === pending) globalForConnection.inlayPlatformConnection = undefined;
    });
  }
  return globalForConnection.inlayPlatformConnection;
}

async function connectFromEnv(prisma: Db): Promise<PlatformConnection> {
  if (env.PLATFORM_BASE_URL && env.PLATFORM_API_KEY) return connectRemote(env.PLATFORM_BASE_URL, env.PLATFORM_API_KEY, recordPlatformCall);
  // Imported here: a remote connection has no use for the embedded platform.
  const [{ getEmbeddedPlatformApp, receiveWebhooksInProcess }, { prepareOperatorAccount }, { IN_PROCESS_BINDINGS }] = await Promise.all([
    import("@/server/framework/embedded-platform"),
    import("@/server/framework/tenancy/platform-operator"),
    import("@/server/platform/embedding"),
  ]);
  // Before the connection registers the ledger's webhook: the platform accepts its URL because of this.
  receiveWebhooksInProcess({
    url: ledgerWebhookUrl(),
    receive: (request) => handleRoute(() => ledgerWebhookResponse(request, getPlatformConnection)),
  });
  const app = getEmbeddedPlatformApp();
  return connectEmbedded({
    prisma,
    // In-process bindings: the framework provisions its own account whatever INLAY_SIGNUP says.
    appFetch: (request) => app.fetch(request, IN_PROCESS_BINDINGS),
    secrets: frameworkSecrets(),
    prepareAccount: (accountId) => prepareOperatorAccount(prisma, accountId),
    onCall: recordPlatformCall,
  });
}
