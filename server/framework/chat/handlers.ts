// The app's chat handlers: the bridge with the framework's context (sessions, embed tokens, limits).
import { createChatHandlers } from "./bridge";
import { resolveFrameworkChatContext } from "./framework-context";

export const chatHandlers = createChatHandlers(resolveFrameworkChatContext);
