// chat-bundle (issue #7): the JavaScript a first load of the chat fetches, gzipped (level 9), from a
// production build; target <= 120 KB. Inlay's two chat pages, /chat (the member's full chat) and the
// embed page (/embed/[agent], the iframe of public/embed.js), are route handlers' HTML loading one
// entry each of the widget bundle (server/framework/chat/page.ts, server/framework/embed/page.ts,
// server/framework/embed/widget-build.ts). Printed beside them, from the same build: <InlayChat> inside an
// app-router page on React (the console's agent page, as a vendor would embed it in their own Next
// pages), and a floor, the first load of the smallest app-router page, which is what the fixed stack
// (React, Next's app router, the bundler's runtime, the root layout) costs any app-router page.
//
// The build is `npm run build`'s: the widget (server/framework/embed/widget-build.ts), then `next build --webpack`;
// BENCH_BUNDLER=turbopack measures a Turbopack build of the same sources instead (the comparison in
// bench/results/2026-11-22-chat.md). The build is made when .next or the widget is missing, .next is
// older than the sources, or made by the other bundler.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { widgetAssets, widgetManifestPath, type WidgetAssets, type WidgetEntry } from "../server/framework/embed/widget-assets";

const root = path.resolve(import.meta.dirname, "..");
const next = path.join(root, ".next");
const KB = 1024;
const TARGET = 120 * KB;
const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;
const gzipped = (data: Buffer) => gzipSync(data, { level: 9 }).length;

export type Bundler = "turbopack" | "webpack";

// What a change to the client bundle can come from. The build is reused only when its BUILD_ID is
// newer than every one of these (a stale build would measure code that is gone).
const BUILD_INPUTS = ["app", "components", "lib", "public", "server/framework/embed", "next.config.mjs", "postcss.config.mjs", "package.json", "package-lock.json", "tsconfig.json", "proxy.ts"];
/** The widget's output (public/embed-app): built from the inputs above, so not one of them (`npm run dev` rewrites it). */
const widgetDir = path.dirname(widgetManifestPath(root));

function newestMtime(entry: string): number {
  if (entry === widgetDir) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/** An entry's files (URL paths under public/), read as its page reads them: see widgetFirstLoad. */
export async function readWidget(entry: WidgetEntry): Promise<WidgetAssets> {
  const assets = await widgetAssets(entry, root);
  if (!assets) throw new Error(`no widget manifest at ${widgetManifestPath(root)}: run npm run build:embed`);
  return assets;
}

/**
 * The JS files a first load of the embed page fetches: the module script and the chunks it imports
 * statically, which the page also preloads (server/framework/embed/page.ts writes both from the widget's
 * manifest). The markdown renderer's chunk (`lazy`) comes later, as on /chat.
 */
export const widgetFirstLoad = (widget: WidgetAssets) => [widget.script, ...widget.preload];

/** Which bundler made .next: only webpack builds have a server webpack runtime. */
const builtWith = (): Bundler => (existsSync(path.join(next, "server/webpack-runtime.js")) ? "webpack" : "turbopack");

export function ensureBuild(bundler: Bundler): string {
  const buildId = path.join(next, "BUILD_ID");
  const sources = Math.max(...BUILD_INPUTS.map((each) => path.join(root, each)).filter(existsSync).map(newestMtime));
  const fresh = existsSync(buildId) && statSync(buildId).mtimeMs > sources && builtWith() === bundler;
  if (fresh && existsSync(widgetManifestPath(root))) return "reused .next and the widget (newer than the sources)";
  console.log(`building (the widget, then next build, ${bundler}): .next or the widget is missing, older than the sources or made by the other bundler …`);
  // eslint-disable-next-line no-restricted-properties -- the build inherits the benchmark's environment
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  execFileSync(path.join(root, "node_modules/.bin/tsx"), ["server/framework/embed/widget-build.ts", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"], env });
  execFileSync(path.join(root, "node_modules/.bin/next"), ["build", ...(bundler === "webpack" ? ["--webpack"] : [])], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env,
  });
  return "built now";
}

interface ClientReferenceManifest {
  /** Turbopack: per segment (layout, page, the built-in global error), the chunks of its client components. */
  entryJSFiles?: Record<string, string[]>;
  /** Both bundlers: per client component, `chunks` as [id, file, id, file, …] (webpack fills it). */
  clientModules: Record<string, { chunks: string[] }>;
}

function readManifest(page: string): ClientReferenceManifest {
  const file = path.join(next, "server/app", `${page}_client-reference-manifest.js`);
  // The manifest is a script that assigns globalThis.__RSC_MANIFEST[page]: run it in a context of its own.
  const context: { __RSC_MANIFEST?: Record<string, ClientReferenceManifest> } = {};
  runInNewContext(readFileSync(file, "utf8"), context, { filename: file });
  const manifest = context.__RSC_MANIFEST?.[page];
  if (!manifest) throw new Error(`no ${page} entry in ${file}`);
  return manifest;
}

/**
 * The JS files a first load of an app page (e.g. "/(console)/(trpc)/agents/[id]/chat/page") fetches,
 * from the build's manifests. Why manifests and not the HTML of `next start`: the page needs a
 * signed-in member with a tenant, so a fetched page would be a redirect to /signin unless the benchmark also
 * seeded a database and a session (chat-bundle-browser does, in Chromium, and checks this list against
 * what the browser fetched); the manifests are what Next itself renders those script tags from:
 * - build-manifest.json `rootMainFiles`: the runtime and framework chunks every app route loads;
 *   `polyfillFiles` are left out, since they are `noModule` scripts modern browsers skip;
 * - the page's client reference manifest (server/app/<page>_client-reference-manifest.js): the chunks
 *   holding the client components of each segment on the page's path (root layout, group layouts,
 *   the page). Turbopack lists them per segment in `entryJSFiles`; webpack lists, per client
 *   component, its entry's chunks, and the entries on the page's path are told by their entry chunk
 *   (static/chunks/app/<segment>/layout-<hash>.js, …/page-<hash>.js).
 * Chunks loaded later by a dynamic import() are not in these lists; see lazyChunks for those.
 */
export function firstLoadChunks(page: string, bundler: Bundler): string[] {
  const build = JSON.parse(readFileSync(path.join(next, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  const manifest = readManifest(page);
  let segments: string[];
  if (bundler === "turbopack") {
    if (!manifest.entryJSFiles) throw new Error(`${page}: the manifest has no entryJSFiles (not a Turbopack build?)`);
    segments = Object.values(manifest.entryJSFiles).flat();
  } else {
    // "/(console)/memories/page" → the entries app/layout, app/(console)/layout, app/(console)/memories/layout, app/(console)/memories/page.
    const dirs = page.split("/").slice(1, -1);
    const folder = (depth: number) => `static/chunks/app/${dirs.slice(0, depth).map((dir) => `${dir}/`).join("")}`;
    const entries = [...Array.from({ length: dirs.length + 1 }, (_, depth) => `${folder(depth)}layout-`), `${folder(dirs.length)}page-`];
    const onPath = (file: string) => entries.some((entry) => file.startsWith(entry) && !file.slice(entry.length).includes("/"));
    // A stylesheet's entry (app/globals.css) names its segment's chunks too, but no script of it runs:
    // the browser does not fetch app/layout-….js for a root layout that has only CSS.
    segments = Object.entries(manifest.clientModules)
      .filter(([module]) => !module.endsWith(".css"))
      // The files are URL-encoded there (app/(console)/(trpc)/agents/%5Bid%5D/chat/page-….js).
      .map(([, module]) => module.chunks.filter((_, index) => index % 2 === 1).map(decodeURIComponent))
      .filter((files) => files.some(onPath))
      .flat();
  }
  return [...new Set([...build.rootMainFiles, ...segments])].filter((file) => file.endsWith(".js"));
}

/**
 * Every app page a person can open ("/(console)/(trpc)/agents/page", "/_not-found/page", …). Left out:
 * /_global-error, which only replaces the root layout when that fails to render.
 */
function appPages(): string[] {
  const paths = JSON.parse(readFileSync(path.join(next, "server/app-paths-manifest.json"), "utf8")) as Record<string, string>;
  return Object.keys(paths).filter((each) => each.endsWith("/page") && each !== "/_global-error/page");
}

/**
 * When the app fetches each of its on-demand chunks (dynamic import()s, named as webpack names them
 * in react-loadable-manifest.json). Kept here so a new lazy import that /chat reaches shows up as
 * "unknown" until someone says when it loads: a chunk a page always fetches right after hydration is
 * part of what it costs, and must be read as such, not hidden.
 */
const ON_DEMAND: Record<string, string> = {
  "packages/react/src/markdown.tsx -> ./markdown-renderer":
    "when a message is shown: at the first send, or right after hydration if one is restored",
  "components/console/sign-out-button.tsx -> next-auth/react": "on a click on Sign out",
  "components/console/tenant-switcher.tsx -> @/components/trpc/client": "on a workspace switch",
};
const TURBOPACK_ON_DEMAND = "(Turbopack: the imports are not named)";
ON_DEMAND[TURBOPACK_ON_DEMAND] = "the same dynamic imports as in a webpack build, together";

/**
 * The dynamic imports a page's first-load code can make, with their chunks (those not already
 * loaded). webpack: react-loadable-manifest.json names every import() of the build with its module
 * id and chunks; the page reaches those whose module id its chunks (less the runtime) refer to.
 * Turbopack names no imports: its chunks carry the paths of the chunks they load, followed
 * transitively, and are reported as one unnamed group.
 */
function onDemandChunks(firstLoad: string[], runtime: Set<string>, bundler: Bundler): { name: string; files: string[] }[] {
  const loaded = new Set(firstLoad);
  const code = firstLoad.filter((file) => !runtime.has(file)).map((file) => readFileSync(path.join(next, file), "utf8"));
  if (bundler === "webpack") {
    const manifest = JSON.parse(readFileSync(path.join(next, "react-loadable-manifest.json"), "utf8")) as Record<string, { id: number; files: string[] }>;
    return Object.entries(manifest)
      .filter(([, entry]) => code.some((text) => new RegExp(`[^\\w$.]${entry.id}[^\\w]`).test(text)))
      .map(([name, entry]) => ({ name, files: entry.files.filter((file) => file.endsWith(".js") && !loaded.has(file)) }));
  }
  const found = new Set<string>();
  const queue = [...code];
  while (queue.length > 0) {
    for (const [file] of queue.pop()!.matchAll(/static\/chunks\/[\w.-]+\.js/g)) {
      if (loaded.has(file) || found.has(file)) continue;
      found.add(file);
      queue.push(readFileSync(path.join(next, file), "utf8"));
    }
  }
  return found.size > 0 ? [{ name: TURBOPACK_ON_DEMAND, files: [...found] }] : [];
}

interface Chunk {
  file: string;
  raw: number;
  gzip: number;
}

const sizes = new Map<string, Chunk>();
/** A file of the Next build (static/chunks/…), or with `dir` public/, one of the widget's (/embed-app/…). */
function measure(file: string, dir = next): Chunk {
  const where = path.join(dir, file);
  let chunk = sizes.get(where);
  if (!chunk) {
    const data = readFileSync(where);
    chunk = { file, raw: data.length, gzip: gzipped(data) };
    sizes.set(where, chunk);
  }
  return chunk;
}
const measureWidget = (file: string) => measure(file, path.join(root, "public"));

const total = (chunks: Chunk[], key: "raw" | "gzip") => chunks.reduce((sum, each) => sum + each[key], 0);
/** The app-router page that hosts <InlayChat> on React: what a vendor's own page with the chat costs. */
export const IN_APP_PAGE = "/(console)/(trpc)/agents/[id]/chat/page";
const route = (page: string) => page.replace(/\/page$/, "").replace(/\/\([^)]+\)/g, "") || "/";

/** A widget page's first load and its state once a message shows (the markdown renderer loaded). */
async function widgetPage(entry: WidgetEntry, name: string) {
  const widget = await readWidget(entry);
  const first = widgetFirstLoad(widget).map(measureWidget);
  const lazy = widget.lazy.map(measureWidget);
  console.log(`\n${name} first-load JavaScript (the widget bundle's "${entry}" entry, esbuild + Preact; ${first.length} files)`);
  console.table(Object.fromEntries(first.map((each) => [each.file, { raw: kb(each.raw), "gzip -9": kb(each.gzip) }])));
  return { name, first, withMessage: [...first, ...lazy] };
}

export async function chatBundle(): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const bundler: Bundler = process.env.BENCH_BUNDLER === "turbopack" ? "turbopack" : "webpack";
  const how = ensureBuild(bundler);
  const framework = new Set((JSON.parse(readFileSync(path.join(next, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] }).rootMainFiles);
  const load = (page: string) => firstLoadChunks(page, bundler).map((file) => measure(file));
  console.log(`\n(${bundler} build, ${how})`);

  // Inlay's chat pages: written as HTML by route handlers, each loading one entry of the widget bundle.
  const pages = [await widgetPage("chat", "/chat"), await widgetPage("embed", "/embed/[agent]")];

  // <InlayChat> inside an app-router page, on React: the console's agent page. What it costs over
  // the floor is the page's share (the chat, and the console's tRPC client and quota meter); the
  // floor is what the vendor's own Next app loads anyway.
  const inApp = load(IN_APP_PAGE);
  console.log(`\n${route(IN_APP_PAGE)} first-load JavaScript (<InlayChat> in an app-router page, React; ${inApp.length} chunks)`);
  console.table(
    Object.fromEntries(
      [...inApp]
        .sort((a, b) => b.gzip - a.gzip)
        .map((each) => [each.file, { raw: kb(each.raw), "gzip -9": kb(each.gzip), loads: framework.has(each.file) ? "every page" : "" }]),
    ),
  );
  // The floor: the smallest first load of any app page in this build.
  const appPageLoads = appPages().map((page) => ({ page, chunks: load(page) }));
  const floor = appPageLoads.reduce((min, each) => (total(each.chunks, "gzip") < total(min.chunks, "gzip") ? each : min));
  const floorGzip = total(floor.chunks, "gzip");
  const runtime = [...framework].filter((file) => file.endsWith(".js")).map((file) => measure(file));
  const lazy = onDemandChunks(inApp.map((each) => each.file), framework, bundler);
  console.log(`\n${route(IN_APP_PAGE)}: chunks loaded on demand, after first paint (dynamic import())`);
  console.table(
    Object.fromEntries(
      lazy.map(({ name, files }) => {
        const chunks = files.map((file) => measure(file));
        return [name, { chunks: chunks.length, raw: kb(total(chunks, "raw")), "gzip -9": kb(total(chunks, "gzip")), when: ON_DEMAND[name] ?? "unknown: say in ON_DEMAND" }];
      }),
    ),
  );
  const inAppMarkdown = lazy.filter(({ name }) => name.startsWith("packages/react/src/")).flatMap(({ files }) => files.map((file) => measure(file)));

  const rows: [string, Chunk[], Chunk[] | undefined, string][] = [
    ...pages.map(({ name, first, withMessage }) => [`${name} (widget page)`, first, withMessage, "n/a"] as [string, Chunk[], Chunk[], string]),
    [`${route(IN_APP_PAGE)} (<InlayChat> in an app-router page)`, inApp, [...inApp, ...inAppMarkdown], kb(total(inApp, "gzip") - floorGzip)],
    [`floor: smallest app page (${route(floor.page)})`, floor.chunks, undefined, kb(0)],
    ["framework runtime (rootMainFiles, every app page)", runtime, undefined, ""],
  ];
  console.log("\nfirst-load JavaScript by page, same build (gzip -9)");
  console.table(
    Object.fromEntries(
      rows.map(([name, chunks, withMessage, overFloor]) => [
        name,
        {
          files: chunks.length,
          raw: kb(total(chunks, "raw")),
          "first load": kb(total(chunks, "gzip")),
          "once a message shows": withMessage ? kb(total(withMessage, "gzip")) : "",
          // The floor is what an app-router page cannot go below; the widget pages are not app-router pages.
          "over the floor": overFloor,
        },
      ]),
    ),
  );
  for (const { name, first, withMessage } of pages) {
    const gzip = total(first, "gzip");
    console.log(
      `${name}: ${kb(total(first, "raw"))} raw, ${kb(gzip)} gzipped (target <= 120 KB gzipped): ${gzip <= TARGET ? "ok" : "MISSES TARGET"}; ` +
        `${kb(total(withMessage, "gzip"))} once a message shows`,
    );
  }
  console.log(
    `${route(IN_APP_PAGE)}: ${kb(total(inApp, "gzip"))} gzipped, of which the floor (${route(floor.page)}, the vendor's Next app) is ${kb(floorGzip)}: ` +
      `the page's own share (<InlayChat> on React, the console's tRPC and query client, the quota meter) is ${kb(total(inApp, "gzip") - floorGzip)}`,
  );
}
