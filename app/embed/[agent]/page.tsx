// /embed/<agent>?tenant=<slug>&host=<origin>: the chat surface public/embed.js frames. No session
// cookie is needed: the token arrives from the host page (components/chat/embed-surface.tsx). Its
// CSP frame-ancestors (the tenant's allowed embed origins) is set by proxy.ts.
import type { Metadata } from "next";
import { EmbedSurface } from "@/components/chat/embed-surface";
import { normalizeOrigin } from "@/server/embed/tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Chat", robots: { index: false } };

export default async function EmbedPage({
  params,
  searchParams,
}: {
  params: Promise<{ agent: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { agent } = await params;
  const query = await searchParams;
  const host = typeof query.host === "string" ? normalizeOrigin(query.host) : undefined;
  const title = typeof query.title === "string" ? query.title.slice(0, 80) : undefined;
  // Only a hex colour: the value ends up in a style attribute.
  const accent = typeof query.accent === "string" && /^#[0-9a-f]{3,8}$/i.test(query.accent) ? query.accent : undefined;
  if (!host) {
    return <p className="p-6 text-sm text-muted">This page is opened by the embed script (public/embed.js).</p>;
  }
  return <EmbedSurface agent={decodeURIComponent(agent)} host={host} title={title} accent={accent} />;
}
