// @inlay/react: Inlay's chat in your own React tree. <InlayProvider url session> once (session: a
// function asking your backend for a chat session), then <InlayChat agent="…" /> anywhere below it;
// import "@inlay/react/styles.css" once. Tool calls can be drawn by your own components
// (toolRenderers); the theme is CSS variables (InlayTheme) and your class names (className). To draw
// the chat yourself: useInlayChat (and useInlayQuota, useInlayConnections), the same state headless.
export { InlayChat, type InlayChatProps } from "./inlay-chat";
export { useInlayChat, type InlayChatController, type UseInlayChatOptions } from "./use-inlay-chat";
export type { ChatActionsApi } from "./use-chat-actions";
export { InlayProvider, useInlay, themeStyle, type InlayConfig, type InlayProviderProps, type InlayTheme } from "./provider";
export { InlayConnections, useInlayConnections, type ConnectionsState, type InlayApp } from "./connections";
export { InlayQuota, useInlayQuota, type InlayQuotaData, type QuotaState } from "./quota";
export type { GetSession, InlaySessionToken } from "./session";
export { toolViewRenderers } from "./tool-views";
export type { ToolView, ToolViews } from "@inlay/core/chat/tool-views";
export type { ToolRenderer, ToolRenderers, ToolRenderersFor, ToolRenderProps, ToolRenderState } from "./tool-renderers";
export type { ChatMessage } from "@inlay/core/chat/types";
