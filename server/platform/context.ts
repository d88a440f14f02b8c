// What every platform handler can reach: its dependencies and the per-request variables set by
// middleware. Kept apart from app.ts so route files can import the types without a cycle.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { Database } from "@/server/db";
import type { Limiters } from "./middleware/rate-limit";
import type { AuthContext } from "./services/auth";
import type { Mailer } from "./services/mailer";
import type { ModelSettings } from "./services/models";

export interface PlatformConfig {
  keyPrefix: string;
  rateLimits: { accountPerMinute: number; ipPerMinute: number; signupPerMinute: number };
  /** Read the client IP from X-Forwarded-For (behind a trusted reverse proxy). */
  trustProxy: boolean;
  models: ModelSettings;
}

export interface PlatformDeps {
  /** The database, opened (and migrated) on first use. */
  database: () => Promise<Database>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
}

export interface PlatformEnv {
  Variables: {
    requestId: string;
    deps: PlatformDeps;
    prisma: PrismaClient;
    /** Set when the request presented a valid key; null for an invalid one; undefined for none. */
    auth: AuthContext | null | undefined;
  };
}

export type PlatformApp = OpenAPIHono<PlatformEnv>;
export type PlatformContext = Context<PlatformEnv>;

/** Where the platform is mounted, in Next.js and in the standalone server alike. */
export const PLATFORM_BASE_PATH = "/api/v2";
