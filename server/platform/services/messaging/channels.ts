// Channels (/channels): the team-chat app and the code-host app as an account's channels. An account
// may store its own registration of either (its identity: OAuth client, signing secret, and for the
// code host its app id, slug and private key), sealed and never returned; app-credentials.ts'
// appForAccount makes the account's connect flows, refreshes and revocations of that app use it
// instead of the operator's shared app. Install links are the apps' own connect flow.
import { CHANNELS, type Channel, type ChannelName, type PutChannelIdentityRequest } from "@inlay/core/schemas/channels";
import { appCatalogOf } from "../../apps/catalog";
import { PlatformError } from "../../errors";
import * as identities from "../../repositories/channel-identities";
import type { ChannelIdentityRow } from "../../repositories/channel-identities";
import { appForAccount, appUsable } from "../apps/app-credentials";
import { sealSecret } from "../sealed-secrets";
import { startConnect, type AppServiceContext } from "../apps/apps";
import type { AuthContext } from "../account/auth";

function toChannel(ctx: AppServiceContext, channel: ChannelName, row: ChannelIdentityRow | undefined): Channel {
  const catalog = appCatalogOf(ctx.config);
  const app = catalog.get(channel)!;
  const shared = catalog.configured(channel);
  return {
    channel,
    app: app.slug,
    name: app.name,
    identity: row ? "own" : shared ? "shared" : "unavailable",
    client_id: row?.clientId ?? (shared ? (app.oauth?.clientId ?? null) : null),
    client_secret_set: row !== undefined,
    signing_secret_set: row !== undefined,
    codehost_app_id: row?.codehostAppId ?? null,
    codehost_app_slug: row?.codehostAppSlug ?? null,
    codehost_private_key_set: Boolean(row?.codehostPrivateKeySealed),
    updated_at: row?.updatedAt.toISOString() ?? null,
  };
}

export async function listChannels(ctx: AppServiceContext, accountId: number): Promise<{ data: Channel[]; has_more: false }> {
  const rows = await identities.listIdentities(ctx.prisma, accountId);
  return { data: CHANNELS.map((channel) => toChannel(ctx, channel, rows.find((row) => row.channel === channel))), has_more: false };
}

/** Replaces the account's identity of the channel: every secret sealed, none returned. */
export async function putChannelIdentity(ctx: AppServiceContext, accountId: number, input: PutChannelIdentityRequest): Promise<Channel> {
  const privateKey = input.channel === "codehost" ? (input.codehost_private_key ?? null) : null;
  const row = await identities.upsertIdentity(ctx.prisma, accountId, input.channel, {
    clientId: input.client_id,
    clientSecretSealed: sealSecret(ctx.config, input.client_secret),
    signingSecretSealed: sealSecret(ctx.config, input.signing_secret),
    codehostAppId: input.channel === "codehost" && input.codehost_app_id !== undefined ? String(input.codehost_app_id) : null,
    codehostAppSlug: input.channel === "codehost" ? (input.codehost_app_slug ?? null) : null,
    codehostPrivateKeySealed: privateKey === null ? null : sealSecret(ctx.config, privateKey),
  });
  return toChannel(ctx, input.channel, row);
}

/**
 * The links that install the chat app and the code-host app for the account (or the end-user): one
 * connect flow of each (POST /apps/<app>/connect), so the install completes like any connection. The
 * chat app must be available (503 otherwise, whatever the code host's state); an unavailable code host
 * gives null.
 */
export async function channelInstallLinks(ctx: AppServiceContext, auth: AuthContext, userId: string | undefined, redirectUri: string | undefined) {
  const [chat, codehost] = await Promise.all(CHANNELS.map((channel) => appForAccount(ctx, auth.accountId, channel)));
  if (!chat || !appUsable(chat)) {
    throw new PlatformError({
      type: "api_error",
      status: 503,
      errorCode: "chat_app_unavailable",
      message: "the chat app is unavailable on this platform: the operator has not configured it and the account has no identity of its own (PUT /channels/identities)",
    });
  }
  const own = new Set((await identities.listIdentities(ctx.prisma, auth.accountId)).map((row) => row.channel));
  const redirect = redirectUri ?? `${new URL(ctx.config.publicBaseUrl).origin}/`;
  const link = async (channel: ChannelName) => {
    const started = await startConnect(ctx, auth, channel, userId, { redirect_uri: redirect });
    return { install_url: started.authorization_url, connection_id: started.connection_id, expires_at: started.expires_at, identity: own.has(channel) ? ("own" as const) : ("shared" as const) };
  };
  return { chat: await link("chat"), codehost: codehost && appUsable(codehost) ? await link("codehost") : null };
}
