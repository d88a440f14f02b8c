// Where the widget bundle is and which of its files each page loads. The bundle has two entries, the
// embed page's (app/embed/[agent], server/framework/embed/page.ts) and the full chat page's (app/chat,
// server/framework/chat/page.ts), which share their chunks. server/framework/embed/widget-build.ts builds it into
// public/embed-app/ (gitignored; `npm run build` and `npm run dev` run it) with a manifest.json that
// this module reads, since the file names carry content hashes. No imports beyond Node's: the build
// script uses the same names.
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

/** The folder under public/, and so the URL path the files are served at. */
export const WIDGET_DIR = "embed-app";
export const WIDGET_MANIFEST = "manifest.json";

/** The bundle's entries: the page each one runs. */
export const WIDGET_ENTRIES = {
  embed: "components/chat/embed-main.tsx",
  chat: "components/chat/chat-page-main.tsx",
} as const;
export type WidgetEntry = keyof typeof WIDGET_ENTRIES;

export interface WidgetAssets {
  /** The entry, a module script (URL path). */
  script: string;
  /** The chunks the entry imports statically: preloaded, so they do not wait for the entry. */
  preload: string[];
  stylesheet: string;
  /** Chunks loaded on demand (the markdown renderer); the page does not name them, the bench does. */
  lazy: string[];
}

export type WidgetManifest = Record<WidgetEntry, WidgetAssets>;

export const widgetManifestPath = (root: string) => path.join(root, "public", WIDGET_DIR, WIDGET_MANIFEST);

let cached: { file: string; mtimeMs: number; manifest: WidgetManifest } | undefined;

/** One entry's built files, or undefined when the widget has not been built. Reread when it is rebuilt (dev). */
export async function widgetAssets(entry: WidgetEntry, root = process.cwd()): Promise<WidgetAssets | undefined> {
  const file = widgetManifestPath(root);
  try {
    const { mtimeMs } = await stat(file);
    if (cached?.file !== file || cached.mtimeMs !== mtimeMs) cached = { file, mtimeMs, manifest: JSON.parse(await readFile(file, "utf8")) as WidgetManifest };
    return cached.manifest[entry];
  } catch {
    return undefined;
  }
}
