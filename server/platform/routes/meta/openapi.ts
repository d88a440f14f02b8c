// GET /openapi.json: the machine-readable description of the v2 routes (no auth).
import type { PlatformApp } from "@/server/platform/context";
import { PLATFORM_BASE_PATH } from "@/server/platform/context";

export function register(app: PlatformApp) {
  app.get("/openapi.json", (c) => {
    const document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Agent Platform API",
        version: "2",
        description: "Inlay's self-hosted implementation of the Agent Platform API v2.",
      },
      servers: [{ url: PLATFORM_BASE_PATH }],
    });
    // Routes are registered under the base path; the spec describes them relative to it.
    const paths = Object.fromEntries(
      Object.entries(document.paths ?? {}).map(([path, item]) => [
        path.startsWith(PLATFORM_BASE_PATH) ? path.slice(PLATFORM_BASE_PATH.length) || "/" : path,
        item,
      ]),
    );
    return c.json({ ...document, paths });
  });
}
