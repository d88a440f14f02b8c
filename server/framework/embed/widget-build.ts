// Builds the widget bundle the embed page (server/framework/embed/page.ts) and the full chat page
// (server/framework/chat/page.ts) load: esbuild bundles their entries (WIDGET_ENTRIES) with react, react-dom and
// react/jsx-runtime aliased to preact/compat, so neither page loads React or Next's client runtime
// (issue #7's JavaScript budget), and each page's stylesheet (its components/chat/*-page.css through
// Tailwind, plus chat.css). Output: public/embed-app/ (gitignored), file names with content hashes,
// shared chunks, and manifest.json naming each entry's files.
//
//   tsx server/framework/embed/widget-build.ts build              once (`npm run build` runs it before `next build`)
//   tsx server/framework/embed/widget-build.ts dev [next args]    build, rebuild on every change, and run `next dev`
//                                                  (`npm run dev`), stopping with it
//
// A separate build rather than one inside the Next server: Next's bundlers would have to leave
// esbuild and Tailwind's native parts external, and production would need them at run time. Files in
// public/ are served the same way by `next dev` and `next start`.
import { spawn } from "node:child_process";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import tailwindcss from "@tailwindcss/postcss";
import * as esbuild from "esbuild";
import postcss from "postcss";
import { WIDGET_DIR, WIDGET_ENTRIES, WIDGET_MANIFEST, widgetManifestPath, type WidgetAssets, type WidgetEntry, type WidgetManifest } from "./widget-assets";

const root = path.resolve(import.meta.dirname, "../../..");
const outdir = path.join(root, "public", WIDGET_DIR);
const url = (file: string) => `/${WIDGET_DIR}/${path.relative(outdir, path.join(root, file)).split(path.sep).join("/")}`;

/** A page's Tailwind stylesheet (components/chat/*-page.css): compiled here, then bundled by esbuild with the chat's CSS. */
const tailwind: esbuild.Plugin = {
  name: "tailwind",
  setup(build) {
    build.onLoad({ filter: /[/\\][a-z]+-page\.css$/ }, async (args) => {
      const result = await postcss([tailwindcss({ base: root })]).process(await readFile(args.path, "utf8"), { from: args.path });
      // The files Tailwind read (its @imports, the @source files whose classes it looked for): a change
      // to one of them rebuilds the stylesheet in watch mode.
      const watchFiles = result.messages.flatMap((message) => (message.type === "dependency" && typeof message.file === "string" ? [message.file] : []));
      return { contents: result.css, loader: "css", resolveDir: path.dirname(args.path), watchFiles };
    });
  },
};

/** What a page reads: its entry, the entry's static imports (preloaded) and its on-demand chunks. */
function assetsOf(metafile: esbuild.Metafile, entry: string): WidgetAssets {
  const outputs = metafile.outputs;
  const script = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === entry && file.endsWith(".js"));
  const stylesheet = script && outputs[script]!.cssBundle;
  if (!script || !stylesheet) throw new Error(`esbuild's metafile names no script and stylesheet for ${entry}`);
  const preload = new Set<string>();
  const lazy = new Set<string>();
  const walk = (file: string, onDemand: boolean) => {
    for (const { path: imported, kind } of outputs[file]!.imports) {
      if (imported.startsWith("<")) continue; // an external, none expected
      const isLazy = onDemand || kind === "dynamic-import";
      const into = isLazy ? lazy : preload;
      if (into.has(imported) || (isLazy && preload.has(imported))) continue;
      into.add(imported);
      walk(imported, isLazy);
    }
  };
  walk(script, false);
  return { script: url(script), preload: [...preload].map(url), stylesheet: url(stylesheet), lazy: [...lazy].filter((file) => !preload.has(file)).map(url) };
}

/** Writes the manifest (atomically: the page may be reading it) and deletes files of earlier builds. */
const manifest: esbuild.Plugin = {
  name: "manifest",
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length > 0 || !result.metafile) return;
      const metafile = result.metafile;
      const assets = Object.fromEntries(
        (Object.entries(WIDGET_ENTRIES) as [WidgetEntry, string][]).map(([name, entry]) => [name, assetsOf(metafile, entry)]),
      ) as WidgetManifest;
      const file = widgetManifestPath(root);
      await writeFile(`${file}.tmp`, `${JSON.stringify(assets, null, 2)}\n`);
      await rename(`${file}.tmp`, file);
      const current = new Set([WIDGET_MANIFEST, ...Object.keys(result.metafile.outputs).map((each) => path.relative(outdir, path.join(root, each)))]);
      for (const each of await readdir(outdir)) if (!current.has(each)) await rm(path.join(outdir, each), { force: true });
    });
  },
};

const options: esbuild.BuildOptions = {
  absWorkingDir: root,
  entryPoints: Object.values(WIDGET_ENTRIES),
  outdir,
  entryNames: "[name]-[hash]",
  bundle: true,
  // ESM with splitting: the markdown renderer's import() stays a chunk of its own, loaded on demand,
  // and what both entries use (Preact, <InlayChat>) is one chunk the browser caches for both pages.
  splitting: true,
  format: "esm",
  platform: "browser",
  // The browsers Next targets by default (its browserslist).
  target: ["chrome111", "edge111", "firefox111", "safari16.4"],
  minify: true,
  legalComments: "none",
  jsx: "automatic",
  alias: {
    react: "preact/compat",
    "react-dom/client": "preact/compat/client",
    "react-dom": "preact/compat",
    "react/jsx-runtime": "preact/jsx-runtime",
    "react/jsx-dev-runtime": "preact/jsx-runtime",
  },
  define: { "process.env.NODE_ENV": '"production"' },
  metafile: true,
  logLevel: "warning",
  plugins: [tailwind, manifest],
};

async function main() {
  const [mode = "build", ...nextArgs] = process.argv.slice(2);
  if (mode !== "build" && mode !== "dev") throw new Error(`usage: tsx server/framework/embed/widget-build.ts build | dev [next dev arguments]`);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  if (mode === "build") {
    await esbuild.build(options);
    console.log(`embed widget built into public/${WIDGET_DIR}/`);
    return;
  }
  const context = await esbuild.context(options);
  await context.rebuild();
  await context.watch();
  const next = spawn(path.join(root, "node_modules/.bin/next"), ["dev", ...nextArgs], { cwd: root, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => next.kill(signal));
  next.on("exit", (code, signal) => {
    void context.dispose().finally(() => process.exit(code ?? (signal ? 1 : 0)));
  });
}

await main();
