// Where the embed page's widget bundle is and which of its files the page loads. server/embed/widget-build.ts
// builds it into public/embed-app/ (gitignored; `npm run build` and `npm run dev` run it) with a
// manifest.json that this module reads, since the file names carry content hashes. No imports beyond
// Node's: the build script uses the same names.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

/** The folder under public/, and so the URL path the files are served at. */
export const WIDGET_DIR = "embed-app";
export const WIDGET_MANIFEST = "manifest.json";

export interface WidgetAssets {
  /** The entry, a module script (URL path). */
  script: string;
  /** The chunks the entry imports statically: preloaded, so they do not wait for the entry. */
  preload: string[];
  stylesheet: string;
  /** Chunks loaded on demand (the markdown renderer); the page does not name them, the bench does. */
  lazy: string[];
}

export const widgetManifestPath = (root: string) => path.join(root, "public", WIDGET_DIR, WIDGET_MANIFEST);

let cached: { mtimeMs: number; assets: WidgetAssets } | undefined;

/** The built widget's files, or undefined when it has not been built. Reread when it is rebuilt (dev). */
export async function widgetAssets(root = process.cwd()): Promise<WidgetAssets | undefined> {
  const file = widgetManifestPath(root);
  try {
    const { mtimeMs } = await stat(file);
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, assets: JSON.parse(await readFile(file, "utf8")) as WidgetAssets };
    return cached.assets;
  } catch {
    return undefined;
  }
}
