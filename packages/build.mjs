// Builds the package in the current folder (each package's `build` and `prepack`): every module of
// src/ becomes an ESM entry of dist/ at the same path (so `@inlay/core/money` is dist/money.js), code
// shared between entries goes into chunks, and every bare import (dependencies, peers, the other
// @inlay packages) stays an import. Declarations come from tsc beside the JavaScript. A package whose
// src/ holds a styles.css ships it as dist/styles.css, imported by the app, never by the JavaScript.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { copyFile, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import * as esbuild from "esbuild";

const started = performance.now();
const manifest = JSON.parse(await readFile("package.json", "utf8"));
const entries = (await readdir("src", { recursive: true }))
  .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
  .map((file) => path.join("src", file));
await rm("dist", { recursive: true, force: true });
const react = "react" in (manifest.peerDependencies ?? {});
await esbuild.build({
  entryPoints: entries,
  outdir: "dist",
  outbase: "src",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  jsx: "automatic",
  // Next's App Router renders these components on the client only when the module says so.
  banner: react ? { js: '"use client";' } : undefined,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
  // The sources' own "use client" lines move to the banner.
  logOverride: { "module-level-directive": "silent" },
});
// The package's own TypeScript (a devDependency; hoisted to the repository's node_modules in the workspace).
const tsc = createRequire(path.resolve("package.json")).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
try {
  await copyFile("src/styles.css", "dist/styles.css");
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
console.log(`${manifest.name} built in ${Math.round(performance.now() - started)} ms`);
