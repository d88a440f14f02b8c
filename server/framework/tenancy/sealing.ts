// What the framework seals to read back (its platform API key and webhook secret, tenant tool servers' secrets), under
// keys derived from INLAY_SECRET_KEY (NEXTAUTH_SECRET when unset). The keys it replaced
// (INLAY_SECRET_KEY_PREVIOUS) still open what they sealed until the framework's reseal job
// (framework-jobs.ts) has sealed it again under the current key.
import { env } from "@/lib/env";
import { deriveKey } from "@/server/shared/secret-box";
import type { SealedColumnKeys } from "@/server/platform/embedding";

export const TOOL_SERVER_SECRET = "tenant-tool-server-secret";
export const PLATFORM_API_KEY = "platform-api-key";
export const PLATFORM_WEBHOOK_SECRET = "platform-webhook-secret";

/** The current secret first, then the ones it replaced. */
export const frameworkSecrets = (): string[] => [
  env.INLAY_SECRET_KEY ?? env.NEXTAUTH_SECRET,
  ...(env.INLAY_SECRET_KEY_PREVIOUS ?? "")
    .split(",")
    .map((secret) => secret.trim())
    .filter(Boolean),
];

/** The keys of `purpose`, the current one first. */
export const keysFor = (purpose: string, secrets: readonly string[] = frameworkSecrets()) => secrets.map((secret) => deriveKey(secret, purpose));

/** The framework's sealed columns, for the reseal job. */
export const frameworkSealedColumns = (secrets: readonly string[] = frameworkSecrets()): SealedColumnKeys[] => [
  { at: { table: "tenant_tool_servers", key: "id::text", column: "secret_sealed" }, keys: keysFor(TOOL_SERVER_SECRET, secrets) },
  { at: { table: "framework_platform_accounts", key: "id", column: "api_key_cipher" }, keys: keysFor(PLATFORM_API_KEY, secrets) },
  { at: { table: "framework_platform_accounts", key: "id", column: "webhook_secret_cipher" }, keys: keysFor(PLATFORM_WEBHOOK_SECRET, secrets) },
];
