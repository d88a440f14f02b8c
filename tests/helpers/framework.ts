// The framework over the embedded platform for one test file: one fresh database (PGlite or
// PostgreSQL) holding both halves, the demo seed, the platform app called in-process (as the
// framework does in embedded mode), and tRPC callers for the seeded users.
import type { Session } from "next-auth";
import { seedDemoData } from "@/prisma/seed";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
import { createPlatformApp } from "@/server/platform/app";
import { createPlatformDeps } from "@/server/platform/deps";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { createSimModel } from "@/server/platform/models/sim";
import { recordingMailer } from "@/server/platform/services/messaging/mailer";
import type { PlatformApp } from "@/server/platform/context";
import type { PlatformConfig } from "@/server/platform/platform-config";
import { connectEmbedded, type EmbeddedOptions, type PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { prepareOperatorAccount } from "@/server/framework/tenancy/platform-operator";
import { createTestDatabase, type TestDatabase } from "./database";

export const TEST_SECRET = "framework-test-secret";

export interface FrameworkHarness {
  database: TestDatabase;
  app: PlatformApp;
  connect(): Promise<PlatformConnection>;
  callerFor(email: string, tenantSlug?: string): Promise<ReturnType<typeof createCaller>>;
  close(): Promise<void>;
}

export interface FrameworkOptions {
  /** The platform's webhook delivery settings (its defaults otherwise). */
  webhooks?: PlatformConfig["webhooks"];
  /** Let webhooks reach a receiver on 127.0.0.1 over plain http (default off, as in production). */
  outboundAllowLoopback?: boolean;
  /** How often idle job handlers look for due jobs (default 2 s). */
  jobPollSeconds?: number;
  /** The platform's public base URL (config.publicBaseUrl): the framework's own /api/v2, as when embedded. */
  publicBaseUrl?: string;
  /** The platform's apps (catalogue overrides, vendor apps, redirect origins). */
  apps?: PlatformConfig["apps"];
  /** The platform's payment settings (manual, no operator key, otherwise). */
  payments?: PlatformConfig["payments"];
  /** Webhook URLs delivered in-process, as the embedded platform delivers the framework's run ledger's. */
  inProcessWebhooks?: PlatformConfig["inProcessWebhooks"];
  /** Told of every call the framework's client makes (the app's metrics hook). */
  onCall?: EmbeddedOptions["onCall"];
}

export async function startFramework(options: FrameworkOptions = {}): Promise<FrameworkHarness> {
  const database = await createTestDatabase();
  await seedDemoData(database.prisma);
  const config: PlatformConfig = {
    keyPrefix: "sk_inlay_",
    publicBaseUrl: options.publicBaseUrl ?? "http://localhost:3000/api/v2",
    secretKey: "test-platform-secret-key",
    rateLimits: { accountPerMinute: 100_000, ipPerMinute: 100_000, signupPerMinute: 100_000 },
    trustProxy: false,
    models: { provider: "sim", openaiConfigured: false, anthropicConfigured: false },
    webhooks: options.webhooks,
    outboundAllowLoopback: options.outboundAllowLoopback,
    apps: options.apps,
    payments: options.payments,
    inProcessWebhooks: options.inProcessWebhooks,
  };
  const deps = createPlatformDeps({
    database: async () => database,
    config,
    limiters: createLimiters({ ...config.rateLimits, store: "memory", keyPrefix: `fw-${process.pid}-${Math.random()}` }),
    mailer: recordingMailer,
    languageModel: () => createSimModel(),
    pollRuns: false,
    jobPollSeconds: options.jobPollSeconds,
  });
  const app = createPlatformApp(deps);
  const appFetch = async (request: Request) => app.fetch(request);
  const connectOnce = () =>
    connectEmbedded({
      prisma: database.prisma,
      appFetch,
      secrets: [TEST_SECRET],
      prepareAccount: (accountId) => prepareOperatorAccount(database.prisma, accountId),
      onCall: options.onCall,
    });
  let connection: Promise<PlatformConnection> | undefined;
  const connect = () => (connection ??= connectOnce());

  return {
    database,
    app,
    connect,
    async callerFor(email, tenantSlug) {
      const user = await database.prisma.user.findUniqueOrThrow({ where: { email } });
      const session: Session = { expires: new Date(Date.now() + 60_000).toISOString(), user: { id: user.id, email, isOwner: user.isOwner } };
      return createCaller(
        createInnerContext({ session, prisma: database.prisma, activeTenantSlug: tenantSlug, platformConnection: connect }),
      );
    },
    async close() {
      await deps.close();
      await database.dispose();
    },
  };
}
