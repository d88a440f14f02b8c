// Compiles the platform's processes to JavaScript, so production runs no TypeScript loader (DESIGN.md,
// Operations): `npm run build` runs it, `npm run platform`, `npm run cluster` and `npm run db:migrate` run
// its output when NODE_ENV=production (server/entry.sh).
//
//   tsx server/platform-build.ts [outdir]     default dist/platform/ (gitignored)
//
// One ESM file per entry. node_modules stay external and are resolved from the
// output's place in the checkout (dist/platform/ → node_modules/), as under tsx; the Prisma client
// generated under server/generated is TypeScript, so it is bundled. The script sandbox's worker thread
// (plain .mjs beside prelude.py) is copied beside the bundle, where the sandbox looks for it first.
// Files read at run time from the working directory (prisma/migrations, docs/errors.md) stay there:
// the processes run from the checkout's root.
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(import.meta.dirname, "..");

/** Output name (dist/platform/<name>.js) → source. server/entry.sh and the deploy files name these. */
export const PLATFORM_ENTRIES = {
  standalone: "server/platform/standalone.ts",
  cluster: "server/cluster/cli.ts",
  migrate: "server/migrate-cli.ts",
} as const;

export const DEFAULT_PLATFORM_OUTDIR = path.join(root, "dist", "platform");

const SANDBOX_FILES = ["worker.mjs", "lockdown.mjs", "prelude.py"];
const SANDBOX_DIR = "server/platform/tool-servers/script-sandbox";

export async function buildPlatform(outdir = DEFAULT_PLATFORM_OUTDIR): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(PLATFORM_ENTRIES).map(([name, source]) => [name, path.join(root, source)])),
    outdir,
    bundle: true,
    // No shared chunks: each entry is one file, so import.meta.url in the sandbox's module is the
    // entry's own place, beside the worker files copied below.
    format: "esm",
    platform: "node",
    target: "node20",
    // Resolved at run time from node_modules, as tsx does: native parts, WASM and package files stay where npm put them.
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    sourcemap: "linked",
    // Stack traces and logs keep the functions' and classes' names.
    keepNames: true,
    logLevel: "warning",
  });
  await Promise.all(SANDBOX_FILES.map((file) => copyFile(path.join(root, SANDBOX_DIR, file), path.join(outdir, file))));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outdir = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_PLATFORM_OUTDIR;
  const started = performance.now();
  await buildPlatform(outdir);
  console.log(`platform built in ${Math.round(performance.now() - started)} ms: ${path.relative(process.cwd(), outdir) || "."}/`);
}
