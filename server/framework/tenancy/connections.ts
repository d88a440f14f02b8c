// Members' app connections (docs/connections.md): the apps the tenant offers, each member's status
// with them, and the connect flows through the member's own platform client. A member connects only
// apps their tenant offers; disconnecting and relabelling stay open (taking access away is always
// allowed). Tokens never reach the framework: the platform keeps them and answers only statuses.
import type { Db } from "@/server/shared/db";
import type { App, AppConnection, PlatformClient } from "@inlay/core/platform-client";
import { safeReturnTo } from "@inlay/core/connections/flow";
import type {
  MemberApp,
  MemberAppStatus,
  MemberConnection,
  MemberConnectionsRow,
  TenantAppRow,
} from "@inlay/core/schemas/connections";
import { isAppOffered, listOfferedApps, setAppOffered } from "./apps-repository";
import { signConnectionState } from "./connection-state";
import { TenancyError } from "./errors";
import type { PlatformConnection } from "./platform-connection";
import { listTenantPlatformUsers } from "./platform-repository";

/** The path of the callback route; the signed state is its last segment. */
export const CALLBACK_PATH = "/api/connections/callback";

export interface Member {
  tenantId: string;
  userId: string;
}

const toConnection = (each: AppConnection): MemberConnection => ({
  connectionId: each.connection_id,
  status: each.status,
  accountLabel: each.account_label ?? null,
  label: each.label ?? null,
  lastError: each.last_error ?? null,
  updatedAt: each.updated_at ?? null,
});

/** One app's connections → the member's standing: any active one connects them. */
export function statusOf(connections: readonly Pick<MemberConnection, "status" | "accountLabel">[]): {
  status: MemberAppStatus;
  accountLabel: string | null;
} {
  for (const [wanted, status] of [
    ["active", "connected"],
    ["expired", "expired"],
    ["error", "error"],
    ["pending", "pending"],
  ] as const) {
    const found = connections.find((each) => each.status === wanted);
    if (found) return { status, accountLabel: found.accountLabel };
  }
  return { status: "not_connected", accountLabel: null };
}

function groupByApp(connections: readonly AppConnection[]): Map<string, MemberConnection[]> {
  const byApp = new Map<string, MemberConnection[]>();
  for (const each of connections) byApp.set(each.app, [...(byApp.get(each.app) ?? []), toConnection(each)]);
  return byApp;
}

const catalogueRow = (app: App) => ({
  slug: app.slug,
  name: app.name,
  description: app.description,
  auth: app.auth,
  configured: app.configured,
});

export async function assertAppOffered(prisma: Db, tenantId: string, app: string): Promise<void> {
  if (!(await isAppOffered(prisma, tenantId, app))) {
    throw new TenancyError("FORBIDDEN", `Your workspace does not offer the app "${app}". Ask an admin to turn it on.`, "app");
  }
}

/** The apps the tenant offers, each with this member's status and connections. */
export async function listMemberApps(prisma: Db, client: PlatformClient, tenantId: string): Promise<MemberApp[]> {
  const offered = new Set(await listOfferedApps(prisma, tenantId));
  if (offered.size === 0) return [];
  const [catalogue, connections] = await Promise.all([client.apps.list(), client.apps.connections()]);
  const byApp = groupByApp(connections.data);
  return catalogue.data
    .filter((app) => offered.has(app.slug))
    .map((app) => {
      const mine = byApp.get(app.slug) ?? [];
      return { ...catalogueRow(app), ...statusOf(mine), connections: mine };
    });
}

/**
 * Starts an OAuth connection: the platform's authorization_url for the browser, with our callback
 * (carrying the signed state: who, which app, where back to) as its redirect_uri.
 */
export async function startConnection(
  prisma: Db,
  client: PlatformClient,
  member: Member,
  input: { app: string; returnTo?: string; mode?: "popup" | "redirect"; opener?: string },
  origin: string,
): Promise<{ authorizationUrl: string; connectionId: string }> {
  await assertAppOffered(prisma, member.tenantId, input.app);
  const state = await signConnectionState({
    ...member,
    app: input.app,
    returnTo: safeReturnTo(input.returnTo),
    mode: input.mode ?? "popup",
    ...(input.opener ? { opener: input.opener } : {}),
  });
  const started = await client.apps.connect(input.app, { redirect_uri: callbackUrl(origin, state) });
  return { authorizationUrl: started.authorization_url, connectionId: started.connection_id };
}

export const callbackUrl = (origin: string, state: string) => `${origin.replace(/\/+$/, "")}${CALLBACK_PATH}/${state}`;

/** After the platform's callback: activates the connection (runs waiting for it resume). */
export async function completeConnection(
  prisma: Db,
  client: PlatformClient,
  tenantId: string,
  input: { app: string; connectionId: string },
): Promise<{ status: string; app: string }> {
  await assertAppOffered(prisma, tenantId, input.app);
  const { status, app } = await client.apps.complete(input.app, { connection_id: input.connectionId });
  return { status, app };
}

export async function connectWithApiKey(
  prisma: Db,
  client: PlatformClient,
  tenantId: string,
  input: { app: string; apiKey: string },
): Promise<{ status: string; app: string }> {
  await assertAppOffered(prisma, tenantId, input.app);
  const { status, app } = await client.apps.connectApiKey(input.app, { api_key: input.apiKey });
  return { status, app };
}

/** One connection, or every connection of the app; a connection that is not the member's is NOT_FOUND. */
export async function disconnect(client: PlatformClient, input: { app: string; connectionId?: string }): Promise<void> {
  if (input.connectionId === undefined) return client.apps.disconnectApp(input.app);
  await ownConnection(client, input.connectionId);
  await client.apps.deleteConnection(input.connectionId);
}

export async function relabelConnection(client: PlatformClient, input: { connectionId: string; label: string }): Promise<MemberConnection> {
  const current = await ownConnection(client, input.connectionId);
  const updated = await client.apps.updateConnection(input.connectionId, { label: input.label });
  return { ...toConnection(current), status: updated.status, accountLabel: updated.account_label, label: input.label || null };
}

/** The member's own connection (else NOT_FOUND), checked against their list before acting on it. */
async function ownConnection(client: PlatformClient, connectionId: string): Promise<AppConnection> {
  const { data } = await client.apps.connections();
  const found = data.find((each) => each.connection_id === connectionId);
  if (!found) throw new TenancyError("NOT_FOUND", "No such connection.");
  return found;
}

// --- Tenant admins -------------------------------------------------------------------------------

/** The platform's catalogue, each app marked offered or not by this tenant. */
export async function listTenantApps(prisma: Db, connection: PlatformConnection, tenantId: string): Promise<TenantAppRow[]> {
  const [catalogue, offered] = await Promise.all([connection.client.apps.list(), listOfferedApps(prisma, tenantId)]);
  const on = new Set(offered);
  return catalogue.data.map((app) => ({ ...catalogueRow(app), offered: on.has(app.slug) }));
}

/** Turns an app on or off for the tenant's members; an app the catalogue lacks cannot be turned on. */
export async function setTenantAppOffered(
  prisma: Db,
  connection: PlatformConnection,
  tenantId: string,
  input: { app: string; enabled: boolean },
): Promise<{ app: string; enabled: boolean }> {
  if (input.enabled) {
    const { data } = await connection.client.apps.list();
    if (!data.some((app) => app.slug === input.app)) throw new TenancyError("NOT_FOUND", `No app "${input.app}" in the catalogue.`, "app");
  }
  await setAppOffered(prisma, tenantId, input.app, input.enabled);
  return input;
}

/** Per member (who has used the platform), their status with each offered app: statuses only. */
export async function listMemberConnections(
  prisma: Db,
  connection: PlatformConnection,
  tenantId: string,
): Promise<MemberConnectionsRow[]> {
  const [offered, links] = await Promise.all([listOfferedApps(prisma, tenantId), listTenantPlatformUsers(prisma, tenantId)]);
  return Promise.all(
    links.map(async (link) => {
      const { data } = await connection.client.forUser(link.platformUserId).apps.connections();
      const byApp = groupByApp(data);
      return {
        userId: link.userId,
        email: link.email,
        name: link.name,
        apps: offered.map((app) => ({ app, status: statusOf(byApp.get(app) ?? []).status })),
      };
    }),
  );
}
