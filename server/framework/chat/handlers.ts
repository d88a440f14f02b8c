// The app's chat handlers: the bridge with the framework's context (sessions, embed tokens, limits),
// readable by another site's page that holds an embed token (embed/cors.ts), plus their preflight.
import { corsPreflight, withCors } from "@/server/framework/embed/cors";
import { createChatHandlers, type ChatHandlers } from "./bridge";
import { resolveFrameworkChatContext } from "./framework-context";

const handlers = createChatHandlers(resolveFrameworkChatContext);
const readable = Object.fromEntries(Object.entries(handlers).map(([name, handler]) => [name, withCors(handler.bind(handlers))]));

export const chatHandlers = { ...(readable as unknown as ChatHandlers), preflight: corsPreflight };
