// The PGlite list of vitest.config.ts names files by path: a renamed or removed file would silently
// drop out of the PGlite run.
import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import { PGLITE_FILES } from "@/vitest.config";

it("names only integration test files that exist", () => {
  expect(PGLITE_FILES.filter((file) => !existsSync(file) || !/^tests\/integration\/.+\.test\.ts$/.test(file))).toEqual([]);
});
