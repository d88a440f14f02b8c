// GET /docs/errors: the page every error envelope's doc_url points at (docs/errors.md, as written).
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { PlatformApp } from "@/server/platform/context";

let page: Promise<string> | undefined;

export function register(app: PlatformApp) {
  app.get("/docs/errors", async (c) => {
    page ??= readFile(path.join(process.cwd(), "docs", "errors.md"), "utf8");
    return c.body(await page, 200, { "content-type": "text/markdown; charset=utf-8" });
  });
}
