// Starts the platform app on a fresh database for one test file.
import { createPlatformApp } from "@/server/platform/app";
import type { PlatformApp } from "@/server/platform/context";
import { createTestDatabase, type TestDatabase } from "./database";

export interface PlatformHarness {
  app: PlatformApp;
  database: TestDatabase;
  /** A request to the platform, path relative to /api/v2. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startPlatform(): Promise<PlatformHarness> {
  const database = await createTestDatabase();
  const app = createPlatformApp({ database: async () => database });
  return {
    app,
    database,
    request: (path, init) => Promise.resolve(app.request(`http://platform.test/api/v2${path}`, init)),
    close: () => database.dispose(),
  };
}
