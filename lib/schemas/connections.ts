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
export type MemberAppStatus = "connected" | "expired" | "error" | "pending" | "not_connected";

export interface MemberConnection {
  connectionId: string;
  status: "pending" | "active" | "expired" | "revoked" | "error";
  accountLabel: string | null;
  label: string | null;
  lastError: string | null;
  updatedAt: string | null;
}

export interface MemberApp {
  slug: string;
  name: string;
  description: string | null;
  auth: "oauth2" | "api_key" | "provisioned";
  configured: boolean;
  status: MemberAppStatus;
  /** The account of the connection in use (connected) or to renew (expired). */
  accountLabel: string | null;
  connections: MemberConnection[];
}

export interface TenantAppRow {
  slug: string;
  name: string;
  description: string | null;
  auth: "oauth2" | "api_key" | "provisioned";
  configured: boolean;
  offered: boolean;
}

export interface MemberConnectionsRow {
  userId: string;
  email: string;
  name: string | null;
  /** Statuses only: which account a member connected is theirs to know, not the admins'. */
  apps: { app: string; status: MemberAppStatus }[];
}
