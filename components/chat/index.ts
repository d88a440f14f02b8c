// The embeddable chat: <InlayProvider> once, then <InlayChat agent="…" /> anywhere below it.
export { InlayChat, type InlayChatProps } from "./inlay-chat";
export { InlayProvider, useInlay, themeStyle, type InlayConfig, type InlayTheme } from "./provider";
export type { ChatMessage } from "@/lib/chat/types";
