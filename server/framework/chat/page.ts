// The HTML of /chat (app/chat/route.ts): the signed-in member's full chat with one agent. It is written
// here rather than rendered by the app router so that the page loads only the widget bundle
// (components/chat/chat-page-main.tsx: <InlayChat> on Preact), not React and Next's client runtime:
// the smallest app-router page alone is over issue #7's 120 KB budget. The console's pages keep the
// app router; this one has a header of its own (a way back to them, who is signed in, sign out).
import { buttonClass } from "@/lib/ui/button-class";
import type { z } from "zod";
import { PermissionMode } from "@inlay/core/schemas/agents";
import { attribute, escapeHtml, pageHead, scriptTags, stylesheetTag } from "@/server/framework/embed/html";
import type { WidgetAssets } from "@/server/framework/embed/widget-assets";

export type ChatMode = z.infer<typeof PermissionMode>;

export interface ChatPageQuery {
  /** The tenant agent's id or name; undefined when the URL names none. */
  agent?: string;
  mode?: ChatMode;
}

/** ?agent=<tenant agent id or name>&mode=approval|plan|autonomous, as the app-router page read them. */
export function chatPageQuery(search: URLSearchParams): ChatPageQuery {
  const agent = search.get("agent")?.trim().slice(0, 255);
  const mode = PermissionMode.safeParse(search.get("mode"));
  return { agent: agent || undefined, mode: mode.success ? mode.data : undefined };
}

export interface ChatPageViewer {
  email: string;
  /** The active workspace's name. */
  workspace: string;
  /** Whose conversations the page keeps in the browser (server/framework/chat/storage-scope.ts). */
  storageScope: string;
}

/** The page, or (assets missing: the widget was not built) undefined. `title`: the agent's name, for the chat's header. */
export function chatPageHtml(
  agent: string,
  mode: ChatMode | undefined,
  viewer: ChatPageViewer,
  assets: WidgetAssets | undefined,
  title?: string,
): string | undefined {
  if (!assets) return undefined;
  // The logo as components/ui/logo.tsx draws it.
  const logo =
    `<a href="/" class="inline-flex items-center gap-2 font-semibold tracking-tight">` +
    `<span aria-hidden="true" class="grid size-7 place-items-center rounded-lg bg-accent text-sm font-bold text-accent-fg shadow-sm">in</span>Inlay</a>`;
  const header =
    `<header class="border-b border-line bg-surface"><div class="mx-auto flex h-14 max-w-6xl items-center justify-between gap-6 px-6">` +
    `<div class="flex min-w-0 items-center gap-4">${logo}` +
    `<nav aria-label="Console"><a href="/agents" class="block rounded-lg px-3 py-2 text-sm text-muted hover:bg-fg/5 hover:text-fg">← Agents</a></nav></div>` +
    `<div class="flex min-w-0 items-center gap-3 text-sm">` +
    `<span class="hidden font-medium sm:inline">${escapeHtml(viewer.workspace)}</span>` +
    `<span class="truncate text-muted" data-testid="signed-in-as">${escapeHtml(viewer.email)}</span>` +
    `<button type="button" data-sign-out class="${buttonClass("ghost")}">Sign out</button>` +
    `</div></div></header>`;
  // Until the script takes over: the chat's space, saying it is on its way.
  const chat =
    `<div id="inlay-chat"${attribute("data-agent", agent)}${attribute("data-title", title)}${attribute("data-mode", mode)}${attribute("data-scope", viewer.storageScope)} class="h-[calc(100vh-7.5rem)] min-h-[28rem]">` +
    `<div class="flex h-full items-center justify-center text-sm text-muted" role="status">Loading the chat…</div></div>`;
  return (
    `${pageHead("Chat · Inlay", stylesheetTag(assets) + scriptTags(assets))}<body class="min-h-screen antialiased">` +
    `${header}<main class="mx-auto max-w-6xl px-4 py-4 sm:px-6">${chat}</main></body></html>`
  );
}
