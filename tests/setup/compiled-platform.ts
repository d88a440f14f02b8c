// Vitest global setup of the integration projects: the platform compiled once per run (what `npm run
// build` writes and production runs, server/platform-build.ts), for the tests that start platform
// processes of their own. A process of the bundle starts on about half the CPU of one loading the
// sources through tsx, and the suite starts some sixty of them. Built under dist/ (node_modules resolve
// from there as from dist/platform/) in a directory of its own, so a concurrent `npm run build` is
// not disturbed; removed when the run ends.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildPlatform } from "@/server/platform-build";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compiled platform's directory: standalone.js, cluster.js, migrate.js. */
    compiledPlatform: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = path.resolve(import.meta.dirname, "../..");
  await mkdir(path.join(root, "dist"), { recursive: true });
  const outdir = await mkdtemp(path.join(root, "dist", ".test-"));
  await buildPlatform(outdir);
  project.provide("compiledPlatform", outdir);
  return () => rm(outdir, { recursive: true, force: true });
}
