// iMessage bridges (/bridges; docs/platform-api.md, "Bridges"): an account's connection to its own
// bridge server (a BlueBubbles-style HTTP server on a Mac). Account-scoped. The password is sealed
// with the platform's secret box and never returned; the inbound secret and link codes are shown once
// and kept as hashes. Messages in and the answers out are entry-points/bridge-inbound.ts.
import { randomBytes, randomInt } from "node:crypto";
import type { z } from "zod";
import type { Bridge, BridgeCreate, BridgeProvisionAlt, BridgeUpdate } from "@inlay/core/schemas/bridges";
import type { Page } from "@inlay/core/schemas/common";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import { guardedFetch, OutboundError } from "../../outbound/guarded-fetch";
import { checkUserUrl } from "../../outbound/user-url";
import * as bridges from "../../repositories/bridges";
import type { BridgeRow } from "../../repositories/bridges";
import type { DataContext } from "../../infrastructure/hot-cache";
import { openSecret, sealSecret } from "../sealed-secrets";
import { featureNotAvailable } from "../apps/apps";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { sha256Hex } from "@/server/shared/secret-box";

export type BridgeServiceContext = DataContext & { config: PlatformConfig };
type BridgeOut = z.infer<typeof Bridge>;

/** How long a link code may be texted to the bridge. */
export const LINK_CODE_TTL_MS = 10 * 60 * 1000;
// No 0/O or 1/I: the code is read off a screen and typed on a phone.
const LINK_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const LINK_CODE_LENGTH = 8;
const TEST_TIMEOUT_MS = 10_000;


export const inboundUrlOf = (config: PlatformConfig, id: number) => `${config.publicBaseUrl}/bridges/${id}/inbound`;

export function toBridge(config: PlatformConfig, row: BridgeRow): BridgeOut {
  return {
    id: row.id,
    name: row.name,
    server_url: row.serverUrl,
    owner_handle: row.ownerHandle,
    status: row.status as BridgeOut["status"],
    has_password: row.passwordSealed !== "",
    has_inbound_secret: row.inboundSecretHash !== null,
    inbound_url: inboundUrlOf(config, row.id),
    secret_rotated_at: row.secretRotatedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const fieldError = (field: string, message: string, errorCode?: string) =>
  new PlatformError({ type: "validation_error", errorCode, message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

export const bridgeNotFound = (id: number) => new PlatformError({ type: "not_found", message: `bridge ${id} not found` });

const loopbackAllowed = (config: PlatformConfig) => config.outboundAllowLoopback === true;


/** https, no blocked literal address; plain http only to loopback, and loopback only where OUTBOUND_ALLOW_LOOPBACK is on. */
function checkServerUrl(config: PlatformConfig, url: string): string {
  let parsed: URL;
  try {
    parsed = checkUserUrl(url, { allowLoopback: loopbackAllowed(config) });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw fieldError("server_url", error.message, "invalid_url");
  }
  if (parsed.search || parsed.hash) throw fieldError("server_url", "must be the server's base URL, without a query or fragment", "invalid_url");
  return parsed.toString().replace(/\/+$/, "");
}

export async function findAccountBridge(ctx: DataContext, accountId: number, id: number): Promise<BridgeRow> {
  const row = await bridges.findBridge(ctx.prisma, accountId, id);
  if (!row) throw bridgeNotFound(id);
  return row;
}

/** For agents' bridge_id: a bridge of the same account, else 422 naming the field. */
export async function checkBridgeId(ctx: DataContext, accountId: number, bridgeId: number | null | undefined): Promise<void> {
  if (bridgeId === undefined || bridgeId === null) return;
  if (!(await bridges.findBridge(ctx.prisma, accountId, bridgeId))) {
    throw fieldError("bridge_id", `no bridge ${bridgeId} in this account (GET /bridges lists them)`, "bridge_not_found");
  }
}

export async function createBridge(ctx: BridgeServiceContext, auth: AuthContext, input: z.infer<typeof BridgeCreate>): Promise<BridgeOut> {
  const serverUrl = checkServerUrl(ctx.config, input.server_url);
  const row = await bridges.insertBridge(ctx.prisma, auth.accountId, {
    name: input.name ?? new URL(serverUrl).host,
    serverUrl,
    passwordSealed: sealSecret(ctx.config, input.password),
    ownerHandle: input.owner_handle ?? null,
  });
  return toBridge(ctx.config, row);
}

export async function listBridges(
  ctx: BridgeServiceContext,
  auth: AuthContext,
  query: { limit: number; starting_after?: number },
): Promise<Page<BridgeOut>> {
  const rows = await bridges.listBridges(ctx.prisma, auth.accountId, { limit: query.limit, startingAfter: query.starting_after });
  return toPage(rows, query.limit, (row) => toBridge(ctx.config, row));
}

export async function getBridge(ctx: BridgeServiceContext, auth: AuthContext, id: number): Promise<BridgeOut> {
  return toBridge(ctx.config, await findAccountBridge(ctx, auth.accountId, id));
}

export async function updateBridge(ctx: BridgeServiceContext, auth: AuthContext, id: number, input: z.infer<typeof BridgeUpdate>): Promise<BridgeOut> {
  const current = await findAccountBridge(ctx, auth.accountId, id);
  const row = await bridges.updateBridge(ctx.prisma, current.id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.server_url !== undefined ? { serverUrl: checkServerUrl(ctx.config, input.server_url) } : {}),
    ...(input.password !== undefined ? { passwordSealed: sealSecret(ctx.config, input.password) } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.owner_handle !== undefined ? { ownerHandle: input.owner_handle } : {}),
  });
  return toBridge(ctx.config, row);
}

/** Its handles and log go with it; its agents keep their iMessage settings with bridge_id null. */
export async function deleteBridge(ctx: BridgeServiceContext, auth: AuthContext, id: number): Promise<void> {
  const agents = await bridges.boundAgentIds(ctx.prisma, id);
  const deleted = await bridges.deleteBridge(ctx.prisma, auth.accountId, id);
  if (!deleted) throw bridgeNotFound(id);
  for (const agentId of agents) ctx.cache.agentChanged(auth.accountId, agentId);
}

/** A new inbound secret, returned this once; the previous one stops working at once. */
export async function rotateBridgeSecret(ctx: BridgeServiceContext, auth: AuthContext, id: number): Promise<BridgeOut & { inbound_secret: string }> {
  const current = await findAccountBridge(ctx, auth.accountId, id);
  const secret = `brsec_${randomBytes(24).toString("base64url")}`;
  const row = await bridges.updateBridge(ctx.prisma, current.id, { inboundSecretHash: sha256Hex(secret), secretRotatedAt: new Date() });
  return { ...toBridge(ctx.config, row), inbound_secret: secret };
}

/** A single-use code that links the handle that texts it to the bridge; replaces an earlier one. */
export async function createLinkCode(ctx: BridgeServiceContext, auth: AuthContext, id: number) {
  const current = await findAccountBridge(ctx, auth.accountId, id);
  const code = Array.from({ length: LINK_CODE_LENGTH }, () => LINK_CODE_ALPHABET[randomInt(LINK_CODE_ALPHABET.length)]).join("");
  const expiresAt = new Date(Date.now() + LINK_CODE_TTL_MS);
  await bridges.updateBridge(ctx.prisma, current.id, { linkCodeHash: sha256Hex(code), linkCodeExpiresAt: expiresAt });
  return { bridge_id: current.id, code, expires_at: expiresAt.toISOString() };
}

/** A link code as a person may type it back: any case, spaces around. */
export const linkCodeHashOf = (text: string) => sha256Hex(text.trim().toUpperCase());

export async function listBridgeHandles(ctx: BridgeServiceContext, auth: AuthContext, id: number, query: { limit: number; starting_after?: number }) {
  const bridge = await findAccountBridge(ctx, auth.accountId, id);
  const rows = await bridges.listHandles(ctx.prisma, bridge.id, { limit: query.limit, startingAfter: query.starting_after });
  return toPage(rows, query.limit, (row) => ({ id: row.id, bridge_id: row.bridgeId, handle: row.handle, created_at: row.createdAt.toISOString() }));
}

export async function unlinkBridgeHandle(ctx: BridgeServiceContext, auth: AuthContext, id: number, handleId: number): Promise<void> {
  const bridge = await findAccountBridge(ctx, auth.accountId, id);
  if (!(await bridges.deleteHandle(ctx.prisma, bridge.id, handleId))) {
    throw new PlatformError({ type: "not_found", message: `handle ${handleId} not found on bridge ${id}` });
  }
}

// --- The bridge server's API --------------------------------------------------------------------------

/** The password is a query parameter of the bridge server's API (BlueBubbles' convention). */
export function bridgeApiUrl(config: PlatformConfig, row: BridgeRow, path: string): string {
  const url = new URL(`${row.serverUrl}${path}`);
  url.searchParams.set("password", openSecret(config, row.passwordSealed).value);
  return url.toString();
}

export const bridgeOutboundOptions = (config: PlatformConfig, timeoutMs: number) => ({
  allowHttp: loopbackAllowed(config),
  allowLoopback: loopbackAllowed(config),
  timeoutMs,
});

/**
 * GET {server_url}/api/v1/ping: whether the bridge server answers, through the outbound guard. A server
 * that is down or refuses is a result (ok false), never a platform error.
 */
export async function testBridge(ctx: BridgeServiceContext, auth: AuthContext, id: number) {
  const row = await findAccountBridge(ctx, auth.accountId, id);
  const started = performance.now();
  try {
    const response = await guardedFetch(bridgeApiUrl(ctx.config, row, "/api/v1/ping"), { method: "GET" }, bridgeOutboundOptions(ctx.config, TEST_TIMEOUT_MS));
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      latency_ms: response.durationMs,
      error: ok ? null : response.status === 401 || response.status === 403 ? "the bridge server refused the password" : `the bridge server answered ${response.status}`,
    };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    // OutboundError's message names the host, never the URL and its password.
    return { ok: false, status: null, latency_ms: Math.round(performance.now() - started), error: error.message };
  }
}

// --- Hosted lines -------------------------------------------------------------------------------------

const noHostedLines = "this self-hosted platform has no hosted iMessage line provider; run your own bridge server and register it with POST /bridges";

export function provisionBridge(): never {
  throw featureNotAvailable("POST /bridges/provision", noHostedLines);
}

/** The body is checked first (zod: number E.164, api_key, user_id), so a bad one is named as such. */
export function provisionAltBridge(input: z.infer<typeof BridgeProvisionAlt>): never {
  void input;
  throw featureNotAvailable("POST /bridges/provision-alt", noHostedLines);
}
