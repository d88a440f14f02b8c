// /healthz, /readyz and /metrics of the Next.js app (app/healthz, app/readyz, app/metrics), for the same
// load balancers, orchestrators and scrapers as the platform's processes (server/platform/health.ts,
// whose checks, timeouts and metrics protection it reuses). Ready means a member's request can be served:
// the app's database answers with every migration applied, the platform answers this app's key, and the
// run ledger's webhook is registered (without it runs settle only by the minute's sweep). With the
// embedded platform the app is that platform's process too (role all): its runtime and worker count.
import { env } from "@/lib/env";
import { getDb, type Database } from "@/server/shared/db";
import { getEmbeddedPlatformDeps } from "@/server/framework/embedded-platform";
import { getPlatformConnection } from "@/server/framework/platform";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { LEDGER_EVENTS, LEDGER_WEBHOOK_PATH, ensureLedgerWebhook, ledgerWebhookUrl } from "@/server/framework/tenancy/run-ledger-webhook";
import { createHealth, type Health, type MetricsAccess, type PlatformDeps } from "@/server/platform/embedding";
import { appDraining } from "@/server/framework/lifecycle";

/** A probe's own calls to the platform: one attempt, well inside the check's 2 s. */
const PROBE_CALL = { maxRetries: 0, timeoutMs: 1_500 } as const;

export interface FrameworkHealthDeps {
  database: () => Promise<Database>;
  /** The embedded platform's runtime (role all); absent with a remote platform. */
  runtime?: PlatformDeps["runtime"];
  connection: (database: Database) => Promise<PlatformConnection>;
  /** Where the ledger's webhook delivers (this app's /api/platform-webhooks). */
  ledgerWebhookUrl: string;
  /** Remote only: whether PLATFORM_WEBHOOK_SECRET is set (deliveries cannot be verified without it). */
  webhookSecretSet: boolean;
  /** Sealing secrets of the embedded ledger webhook (tests; the process's own by default). */
  secrets?: readonly string[];
  metrics?: MetricsAccess;
  /** Aborted once this process drains (lifecycle.ts): then it is not ready. */
  draining?: AbortSignal;
}

export function createFrameworkHealth(deps: FrameworkHealthDeps): Health {
  const connection = async () => deps.connection(await deps.database());
  const checks = {
    // Draining (SIGTERM): balancers stop sending here while the app hands its chats on.
    app: async () => {
      if (deps.draining?.aborted) throw new Error("draining: the process is stopping");
    },
    // Any call with the key: the account's settings are the cheapest read it is allowed.
    platform: async () => {
      await (await connection()).client.settings.get(PROBE_CALL);
    },
    ledger_webhook: async () => {
      const platform = await connection();
      if (platform.mode === "embedded") {
        // Registers it when the start-up's attempt failed (idempotent: one read once registered).
        const registered = await ensureLedgerWebhook((await deps.database()).prisma, platform, deps.ledgerWebhookUrl, deps.secrets);
        if (!registered) throw new Error(`the platform refused ${deps.ledgerWebhookUrl}`);
        return;
      }
      if (!deps.webhookSecretSet) throw new Error("PLATFORM_WEBHOOK_SECRET is not set");
      const hooks = await platform.client.webhooks.listAll(undefined, PROBE_CALL);
      const ledger = hooks.find(
        (hook) => hook.active && hook.all_end_users && pathOf(hook.url) === LEDGER_WEBHOOK_PATH && LEDGER_EVENTS.every((kind) => hook.events.includes(kind)),
      );
      if (!ledger) {
        throw new Error(`no active webhook at …${LEDGER_WEBHOOK_PATH} for every end-user's ${LEDGER_EVENTS.join(", ")} on the platform account`);
      }
    },
  };
  return createHealth({ database: deps.database, runtime: deps.runtime }, deps.runtime ? "all" : "framework", deps.metrics, checks);
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

let health: Health | undefined;

/** This process's probes, from the environment. */
export function frameworkHealth(): Health {
  health ??= createFrameworkHealth({
    database: getDb,
    runtime: env.PLATFORM_BASE_URL ? undefined : getEmbeddedPlatformDeps().runtime,
    connection: (database) => getPlatformConnection(database.prisma),
    ledgerWebhookUrl: ledgerWebhookUrl(),
    webhookSecretSet: env.PLATFORM_WEBHOOK_SECRET !== undefined,
    metrics: { token: env.INLAY_METRICS_TOKEN, open: false },
    draining: appDraining(),
  });
  return health;
}

/**
 * The route handlers' answer: a failure to even build the probes (a broken configuration of the
 * embedded platform) is a 503 naming it, never Next.js's bare 500.
 */
export async function answerProbe(request: Request): Promise<Response> {
  try {
    return (await frameworkHealth().answer(request)) ?? new Response("not found\n", { status: 404 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return Response.json({ ready: false, error: message }, { status: 503, headers: { "cache-control": "no-store" } });
  }
}
