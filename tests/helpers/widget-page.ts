// The widget pages (/embed/<agent>, /chat) are plain HTML over the widget bundle: what their unit tests
// check of every such page.
import { expect } from "vitest";
import type { WidgetAssets } from "@/server/framework/embed/widget-assets";

/** The bundle's files for `entry` ("embed-main", "chat-page-main"), as a build would name them. */
export const widgetAssetsOf = (entry: string): WidgetAssets => ({
  script: `/embed-app/${entry}-AAAA.js`,
  preload: ["/embed-app/chunk-BBBB.js"],
  stylesheet: `/embed-app/${entry}-CCCC.css`,
  lazy: ["/embed-app/markdown-renderer-DDDD.js"],
});

/** The page loads exactly its entry's module script, the shared chunk and stylesheet, and no Next runtime. */
export function expectWidgetPage(html: string, assets: WidgetAssets) {
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
  expect(scripts).toEqual([`<script type="module" src="${assets.script}">`]);
  for (const href of assets.preload) expect(html).toContain(`<link rel="modulepreload" href="${href}">`);
  expect(html).toContain(`<link rel="stylesheet" href="${assets.stylesheet}">`);
  expect(html).not.toContain("/_next/");
  expect(html).not.toContain("markdown-renderer"); // loaded on demand only
}
