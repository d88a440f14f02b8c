// Every column that holds a value sealed by services/sealed-secrets.ts, read and rewritten in batches
// by jobs/reseal-secrets.ts when keys rotate. A row is named by `key`, an SQL expression of its primary
// key as text, so one keyset walk serves tables whose keys differ.
import type { Db } from "./db";

export interface SealedColumn {
  table: string;
  /** The row's primary key as text (an SQL expression over the table's columns). */
  key: string;
  column: string;
}

/** Every sealed column of the platform, with the purpose its key was derived for. */
export const SEALED_COLUMNS: readonly (SealedColumn & { purpose: "credentials" | "webhooks" })[] = [
  { table: "platform_webhooks", key: "id::text", column: "secret_sealed", purpose: "webhooks" },
  { table: "platform_webhooks", key: "id::text", column: "previous_secret_sealed", purpose: "webhooks" },
  { table: "platform_app_connections", key: "id", column: "credentials_sealed", purpose: "credentials" },
  { table: "platform_app_connect_flows", key: "state_hash", column: "code_verifier_sealed", purpose: "credentials" },
  { table: "platform_bridges", key: "id::text", column: "password_sealed", purpose: "credentials" },
  { table: "platform_tool_servers", key: "id::text", column: "secret_sealed", purpose: "credentials" },
  { table: "platform_tool_servers", key: "id::text", column: "script_source_sealed", purpose: "credentials" },
  { table: "platform_tool_server_grants", key: "id::text", column: "tokens_sealed", purpose: "credentials" },
  { table: "platform_tool_server_grants", key: "id::text", column: "client_sealed", purpose: "credentials" },
  { table: "platform_tool_server_oauth_flows", key: "state_hash", column: "code_verifier_sealed", purpose: "credentials" },
  { table: "platform_tool_server_oauth_flows", key: "state_hash", column: "client_sealed", purpose: "credentials" },
  { table: "platform_judgment_connections", key: "account_id::text", column: "key_sealed", purpose: "credentials" },
  { table: "platform_channel_identities", key: "account_id::text || '/' || channel", column: "client_secret_sealed", purpose: "credentials" },
  { table: "platform_channel_identities", key: "account_id::text || '/' || channel", column: "signing_secret_sealed", purpose: "credentials" },
  { table: "platform_channel_identities", key: "account_id::text || '/' || channel", column: "codehost_private_key_sealed", purpose: "credentials" },
  { table: "platform_agent_repos", key: "id::text", column: "env_sealed", purpose: "credentials" },
  { table: "platform_model_provider_accounts", key: "id::text", column: "secret_sealed", purpose: "credentials" },
  { table: "platform_fetchmail_mailboxes", key: "agent_id::text", column: "password_sealed", purpose: "credentials" },
  { table: "platform_model_authorizations", key: "state_hash", column: "code_verifier_sealed", purpose: "credentials" },
];

/** The next `limit` sealed values of the column after the row named `after`, in key order. */
export function sealedValuesAfter(prisma: Db, at: SealedColumn, after: string, limit: number) {
  // Identifiers come from SEALED_COLUMNS only; the values are parameters.
  return prisma.$queryRawUnsafe<{ key: string; sealed: string }[]>(
    `SELECT ${at.key} AS key, ${at.column} AS sealed FROM ${at.table}
     WHERE ${at.column} IS NOT NULL AND (${at.key}) COLLATE "C" > $1 ORDER BY (${at.key}) COLLATE "C" LIMIT $2`,
    after,
    limit,
  );
}

/** Replaces a sealed value unless it changed meanwhile (a new secret written since it was read). */
export async function replaceSealedValue(prisma: Db, at: SealedColumn, key: string, from: string, to: string): Promise<boolean> {
  const count = await prisma.$executeRawUnsafe(`UPDATE ${at.table} SET ${at.column} = $3 WHERE (${at.key}) = $1 AND ${at.column} = $2`, key, from, to);
  return count > 0;
}
