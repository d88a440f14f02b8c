// What every platform handler can reach: its dependencies and the per-request variables set by
// middleware. Kept apart from app.ts so route files can import the types without a cycle.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Database } from "@/server/db";

export interface PlatformDeps {
  /** The database, opened (and migrated) on first use. */
  database: () => Promise<Database>;
}

export interface PlatformEnv {
  Variables: {
    requestId: string;
  };
}

export type PlatformApp = OpenAPIHono<PlatformEnv>;

/** Where the platform is mounted, in Next.js and in the standalone server alike. */
export const PLATFORM_BASE_PATH = "/api/v2";
