// Compiles the platform's processes to JavaScript, so production runs no TypeScript loader (docs/design.md,
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
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(import.meta.dirname, "..");

/** Output name (dist/platform/<name>.js) → source. server/entry.sh and the deploy files name these. */
export const PLATFORM_ENTRIES = {
  standalone: "server/platform/standalone.ts",
  // The worker thread standalone.ts starts in role all on PostgreSQL (runtime/worker-thread.ts finds it beside it).
  "worker-thread": "server/platform/worker-thread-entry.ts",
  cluster: "server/cluster/cli.ts",
  migrate: "server/migrate-cli.ts",
} as const;

export const DEFAULT_PLATFORM_OUTDIR = path.join(root, "dist", "platform");

const SANDBOX_FILES = ["worker.mjs", "lockdown.mjs", "prelude.py"];
const SANDBOX_DIR = "server/platform/tool-servers/script-sandbox";

// The generated client imports Prisma's query compiler as a module holding it in base64 (`const wasm =
// "…"`): the module's source and its string literal stay on the heap for the life of the process (4.5 MB).
// In the compiled platform the client reads that file itself and lets the text go once compiled.
const GENERATED_CLIENT = /server[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.ts$/;
const WASM_IMPORT = /const \{ wasm \} = await import\(("@prisma\/client\/runtime\/[\w.]+\.wasm-base64\.mjs")\)\s*return await decodeBase64AsWasm\(wasm\)/;
const WASM_FROM_FILE = `
async function compileWasmBase64File(specifier: string): Promise<WebAssembly.Module> {
  const { readFile } = await import("node:fs/promises");
  const { fileURLToPath } = await import("node:url");
  const text = await readFile(fileURLToPath(import.meta.resolve(specifier)), "latin1");
  const start = text.indexOf('"') + 1;
  return new WebAssembly.Module(Buffer.from(text.slice(start, text.indexOf('"', start)), "base64"));
}
`;
const prismaWasmFromFile: esbuild.Plugin = {
  name: "prisma-wasm-from-file",
  setup(build) {
    build.onLoad({ filter: GENERATED_CLIENT }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const match = WASM_IMPORT.exec(source);
      // A Prisma release that loads its compiler another way fails the build here, not the process.
      if (!match) throw new Error(`${args.path}: the query compiler's base64 import is not where platform-build.ts expects it`);
      return { contents: source.replace(match[0], `return await compileWasmBase64File(${match[1]})`) + WASM_FROM_FILE, loader: "ts" };
    });
  },
};

/**
 * V8 keeps a script's source for its life, in two bytes a character if any one is outside Latin-1: a
 * single "…" in a comment doubled the bundle's 2 MB on the heap. esbuild escapes strings and
 * identifiers (charset ascii) but copies comments as written.
 */
function escapeNonAscii(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

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
    charset: "ascii",
    plugins: [prismaWasmFromFile],
  });
  await Promise.all(
    Object.keys(PLATFORM_ENTRIES).map(async (name) => {
      const file = path.join(outdir, `${name}.js`);
      await writeFile(file, escapeNonAscii(await readFile(file, "utf8")));
    }),
  );
  await Promise.all(SANDBOX_FILES.map((file) => copyFile(path.join(root, SANDBOX_DIR, file), path.join(outdir, file))));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outdir = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_PLATFORM_OUTDIR;
  const started = performance.now();
  await buildPlatform(outdir);
  console.log(`platform built in ${Math.round(performance.now() - started)} ms: ${path.relative(process.cwd(), outdir) || "."}/`);
}
