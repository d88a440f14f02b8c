// Remote mode of the e2e suite: waits for the separately started platform (`npm run platform`), signs
// up an account there (POST /signup through the client) and prints its API key, which the framework
// then uses as PLATFORM_API_KEY; with a file name, also writes it there for the specs that call the
// platform as the framework. With a webhook URL and a secret file, it also does the rest of
// docs/deploy.md's first start: registers the run ledger's webhook at the app (run.* for every
// end-user) and writes its signing secret for PLATFORM_WEBHOOK_SECRET, so runs settle as they end.
// Usage: tsx tests/e2e/support/remote-platform-key.ts <baseUrl> [keyFile [ledgerWebhookUrl secretFile]]
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createPlatformClient, signup } from "@inlay/core/platform-client";

const baseUrl = process.argv[2];
const keyFile = process.argv[3];
const [ledgerWebhookUrl, secretFile] = process.argv.slice(4);
if (!baseUrl) throw new Error("usage: remote-platform-key.ts <platform base URL ending in /api/v2>");

const deadline = Date.now() + 120_000;
for (;;) {
  try {
    const response = await fetch(`${baseUrl}/openapi.json`);
    if (response.ok) break;
  } catch {
    // not listening yet
  }
  if (Date.now() > deadline) throw new Error(`the platform at ${baseUrl} did not come up`);
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const { api_key } = await signup(
  { baseUrl },
  { email: `e2e-framework-${randomBytes(4).toString("hex")}@example.test`, first_name: "E2E framework", password: randomBytes(18).toString("base64url") },
);
if (keyFile) {
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, api_key, { mode: 0o600 });
}
if (ledgerWebhookUrl && secretFile) {
  const hook = await createPlatformClient({ baseUrl, apiKey: api_key }).webhooks.create({
    url: ledgerWebhookUrl,
    events: ["run.completed", "run.failed", "run.cancelled"],
    all_end_users: true,
  });
  mkdirSync(dirname(secretFile), { recursive: true });
  writeFileSync(secretFile, hook.secret, { mode: 0o600 });
}
process.stdout.write(api_key);
