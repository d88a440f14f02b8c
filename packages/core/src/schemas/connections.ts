// The framework's contracts for members' app connections (router `connections`, the Connections page,
// the chat's connect card). The platform's own shapes are in apps.ts.
import { z } from "zod";

export const appSlug = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "is not an app name");

export const connectionStartInput = z.object({
  app: appSlug,
  /**
   * A same-origin path to come back to when the popup cannot be used; /connections by default. It
   * travels in the signed state inside the redirect_uri, which the platform caps at 2,048 characters.
   */
  returnTo: z.string().max(500).optional(),
  /** popup (default): the callback page tells its opener and closes; redirect: it goes back to returnTo. */
  mode: z.enum(["popup", "redirect"]).default("popup"),
});

export const connectionCompleteInput = z.object({ app: appSlug, connectionId: z.string().min(1).max(200) });

export const connectionApiKeyInput = z.object({
  app: appSlug,
  apiKey: z.string().trim().min(1, "Enter the key").max(4_000),
});

export const connectionDisconnectInput = z.object({
  app: appSlug,
  /** One connection of the app; every connection of the app when omitted. */
  connectionId: z.string().min(1).max(200).optional(),
});

export const connectionRelabelInput = z.object({
  connectionId: z.string().min(1).max(200),
  label: z.string().trim().max(100, "at most 100 characters"),
});

export const tenantAppInput = z.object({ app: appSlug, enabled: z.boolean() });

/** A member's standing with one app, worst-case first: what the page and admins show. */
export const MemberAppStatus = z.enum(["connected", "expired", "error", "pending", "not_connected"]);
export type MemberAppStatus = z.infer<typeof MemberAppStatus>;

const AppAuth = z.enum(["oauth2", "api_key", "provisioned"]);

export const MemberConnection = z.object({
  connectionId: z.string(),
  status: z.enum(["pending", "active", "expired", "revoked", "error"]),
  accountLabel: z.string().nullable(),
  label: z.string().nullable(),
  lastError: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type MemberConnection = z.infer<typeof MemberConnection>;

export const MemberApp = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  auth: AppAuth,
  configured: z.boolean(),
  status: MemberAppStatus,
  /** The account of the connection in use (connected) or to renew (expired). */
  accountLabel: z.string().nullable(),
  connections: z.array(MemberConnection),
});
export type MemberApp = z.infer<typeof MemberApp>;

export const TenantAppRow = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  auth: AppAuth,
  configured: z.boolean(),
  offered: z.boolean(),
});
export type TenantAppRow = z.infer<typeof TenantAppRow>;

export const MemberConnectionsRow = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  /** Statuses only: which account a member connected is theirs to know, not the admins'. */
  apps: z.array(z.object({ app: z.string(), status: MemberAppStatus })),
});
export type MemberConnectionsRow = z.infer<typeof MemberConnectionsRow>;

// --- Answers of the other connections procedures (their tRPC .output) ---------------------------------

export const ConnectionStarted = z.object({ authorizationUrl: z.string(), connectionId: z.string() });
/** The platform's status of the connection just made (active, or pending while it is checked). */
export const ConnectionMade = z.object({ app: z.string(), status: z.string() });
export const ConnectionRemoved = z.object({ app: z.string() });
export const TenantAppSet = z.object({ app: z.string(), enabled: z.boolean() });
