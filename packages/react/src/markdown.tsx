"use client";
// <Markdown text="…" />: the agent's text as markdown (./markdown-renderer.tsx). The renderer, a full
// markdown parser, is a large part of the chat's own JavaScript and an empty chat has no text to
// render, so it is loaded on demand: the chat calls preloadMarkdown() as soon as a conversation has
// messages, and until the renderer arrives the text shows as written.
import { lazy, memo, Suspense, type ReactNode } from "react";

function PlainText({ text }: { text: string }) {
  return <div className="ic-markdown ic-markdown-plain">{text}</div>;
}

let loading: Promise<{ default: (props: { text: string }) => ReactNode }> | undefined;
/** Starts loading the renderer, once. A failed load (offline, a deploy in between) is tried again later. */
export function preloadMarkdown() {
  loading ??= import("./markdown-renderer").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

// If the renderer cannot be loaded, the text stays plain rather than the chat failing.
const Renderer = lazy(() => preloadMarkdown().catch(() => ({ default: PlainText })));

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<PlainText text={text} />}>
      <Renderer text={text} />
    </Suspense>
  );
});
