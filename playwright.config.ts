// End-to-end tests in Debian's Chromium (/usr/bin/chromium; Playwright's own browsers cannot be
// downloaded here). The app is built and started on a fresh in-memory database for the run.
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://localhost:${port}`;
// E2E_REMOTE_PLATFORM=1: the same suite with the framework pointed at a platform started separately
// (`npm run platform` on another loopback port, its own in-memory database) instead of the embedded
// one; a set-up script signs up there and hands the key over as PLATFORM_API_KEY.
const remotePlatform = process.env.E2E_REMOTE_PLATFORM === "1";
const platformPort = Number(process.env.E2E_PLATFORM_PORT ?? 3199);
const platformUrl = `http://127.0.0.1:${platformPort}/api/v2`;
// The framework's key on that platform, also written here for the specs that call the platform as the
// framework does (webhooks.spec.ts); handed to them through `metadata.remotePlatform`.
const platformKeyFile = "test-results/e2e-remote-platform-key";
// The signing secret of the run ledger's webhook the set-up registers at the framework (PLATFORM_WEBHOOK_SECRET).
const ledgerSecretFile = "test-results/e2e-remote-ledger-secret";
// The apps file of the remote pass's platform (tests/e2e/support/platform-with-apps.ts writes it).
const appsFile = "test-results/e2e-apps.json";
// Payments through the Stripe adapter, pointed at a loopback fake (tests/helpers/stripe-fake.ts) whose
// hosted checkout page the owner pays on (billing.spec.ts); its webhooks go to whichever platform the
// pass uses. The same settings serve the embedded platform (the framework's env) and the remote one.
const stripeFakePort = Number(process.env.E2E_STRIPE_FAKE_PORT ?? 3198);
const stripeWebhookSecret = "whsec_e2e_only";
const stripeWebhookUrl = `${remotePlatform ? platformUrl : `${baseURL}/api/v2`}/billing/webhooks/stripe`;
const paymentsEnv = {
  INLAY_PAYMENTS_PROVIDER: "stripe",
  STRIPE_SECRET_KEY: "sk_test_e2e_only",
  STRIPE_WEBHOOK_SECRET: stripeWebhookSecret,
  STRIPE_API_BASE_URL: `http://127.0.0.1:${stripeFakePort}`,
  // Where the checkout page sends the payer back (the platform's return page).
  INLAY_PLATFORM_PUBLIC_URL: remotePlatform ? platformUrl : `${baseURL}/api/v2`,
};
const stripeFakeServer = {
  command: `npx tsx tests/helpers/stripe-fake.ts --port ${stripeFakePort} --webhook-url ${stripeWebhookUrl} --webhook-secret ${stripeWebhookSecret}`,
  port: stripeFakePort,
  timeout: 60_000,
  reuseExistingServer: false,
  stdout: "ignore" as const,
  stderr: "pipe" as const,
};
// The owner's manual credits: the framework sends the key, the platform holds its SHA-256.
const operatorKey = "op_e2e_only_key";
const operatorKeySha256 = "0baee529c4347935954b24c2414a53b9dab307e2fa183e3c10dc8bf0d5a86d39";
const serverEnv = {
  PGLITE_DATA_DIR: "memory://",
  NEXTAUTH_SECRET: "e2e-only-secret",
  NEXTAUTH_URL: baseURL,
  LOG_LEVEL: "warn",
  // The app's /metrics answers this bearer only (probes.spec.ts scrapes it).
  INLAY_METRICS_TOKEN: "e2e-only-metrics-token",
  INLAY_OPERATOR_KEY: operatorKey,
  ...(remotePlatform ? {} : { ...paymentsEnv, INLAY_OPERATOR_KEY_SHA256: operatorKeySha256 }),
};
// E2E_SKIP_BUILD=1 reuses the build of an earlier pass (npm test runs the remote pass right after the
// embedded one; the platform's address is read at run time, so one build serves both).
const build = process.env.E2E_SKIP_BUILD === "1" ? "" : "npm run build && ";
const frameworkServer = {
  command: remotePlatform
    ? `${build}PLATFORM_BASE_URL=${platformUrl} PLATFORM_API_KEY=$(npx tsx tests/e2e/support/remote-platform-key.ts ${platformUrl} ${platformKeyFile} ${baseURL}/api/platform-webhooks ${ledgerSecretFile}) PLATFORM_WEBHOOK_SECRET=$(cat ${ledgerSecretFile}) npm run start -- --port ${port}`
    : `${build}npm run start -- --port ${port}`,
  url: `${baseURL}/signin`,
  timeout: 300_000,
  reuseExistingServer: !process.env.CI,
  stdout: "ignore" as const,
  stderr: "pipe" as const,
  env: serverEnv,
};
const platformServer = {
  // With a loopback OAuth server and a code-host fake to connect (tests/e2e/support/platform-with-apps.ts).
  command: `npx tsx tests/e2e/support/platform-with-apps.ts ${platformUrl} ${appsFile} -- --port ${platformPort} --host 127.0.0.1 --data-dir memory://`,
  url: `${platformUrl}/openapi.json`,
  timeout: 120_000,
  reuseExistingServer: false,
  stdout: "ignore" as const,
  stderr: "pipe" as const,
  // Webhooks may reach the specs' receivers on 127.0.0.1 (this process is not NODE_ENV=production, where
  // lib/env.ts refuses the flag), and give up after two attempts 200 ms apart instead of hours.
  // The code host points at the loopback fakes (the file the command writes), and its OAuth flows may
  // send the browser back to the framework's origin.
  env: {
    LOG_LEVEL: "warn",
    OUTBOUND_ALLOW_LOOPBACK: "true",
    WEBHOOK_RETRY_SCHEDULE: "0,200ms",
    INLAY_APPS_FILE: appsFile,
    INLAY_APP_REDIRECT_ORIGINS: baseURL,
    ...paymentsEnv,
    INLAY_OPERATOR_KEY_SHA256: operatorKeySha256,
  },
};

const remoteOnlySpecs = ["**/webhooks.spec.ts", "**/connections-flow.spec.ts", "**/tools.spec.ts", "**/vendor-app.spec.ts"];
// Specs about servers they start themselves from the same build (on the spare ports, with embedded
// platforms of their own), which the pass's platform does not change: they run in the remote pass,
// whose lane of tests/run-all.mjs is the shorter one beside the embedded pass.
const ownServerSpecs = ["**/demo-app.spec.ts", "**/embedded-postgres.spec.ts"];
const remotePassSpecs = [...remoteOnlySpecs, ...ownServerSpecs];

export default defineConfig({
  testDir: "tests/e2e",
  // Its own per pass: tests/run-all.mjs runs the two passes side by side, and each empties its folder.
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results/e2e-artifacts",
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: [["list"], ["json", { outputFile: process.env.E2E_REPORT ?? "test-results/e2e-report.json" }]],
  metadata: {
    ...(remotePlatform ? { remotePlatform: { baseUrl: platformUrl, keyFile: platformKeyFile } } : {}),
    // A port for a spec that starts a server of its own from the same build (public-origin.spec.ts).
    sparePort: Number(process.env.E2E_SPARE_PORT ?? port + 1),
  },
  // Webhook deliveries, the code host's OAuth server and API and the tool servers' MCP server (loopback
  // fakes) need a platform that may call loopback, which only the separate platform of the remote pass
  // is (the embedded one runs under NODE_ENV=production, which refuses OUTBOUND_ALLOW_LOOPBACK): those
  // specs make the remote pass, and each of them streams a chat run across the platform's HTTP boundary.
  // Every other spec runs once, in the embedded pass (but ownServerSpecs, above): the framework reaches
  // either platform through the same typed client, whose HTTP behaviour (streams, resumption, cancel,
  // approvals) tests/integration covers against a platform over HTTP.
  testMatch: remotePlatform ? remotePassSpecs : "**/*.spec.ts",
  testIgnore: remotePlatform ? [] : remotePassSpecs,
  use: {
    baseURL,
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace with DOM snapshots of every step (and its last screenshot, below),
    // but no screencast: recording frames for every test was half of Chromium's CPU in the suite.
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: true },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      // No background traffic: this machine has no network beyond loopback.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: remotePlatform ? [stripeFakeServer, platformServer, frameworkServer] : [stripeFakeServer, frameworkServer],
});
