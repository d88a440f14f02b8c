// Conversations the chat keeps in sessionStorage, each under the key of the person it belongs to: an
// opaque scope the server derives from (tenant, user) (server/framework/chat/storage-scope.ts), so one person's
// conversation is never shown to the next one in the same tab. What another scope left behind is
// removed when a chat mounts, and everything is removed on sign-out and on switching workspaces.
import type { ChatMessage } from "@inlay/core/chat/types";

const PREFIX = "inlay-chat:";

export const chatStorageKey = (scope: string, id: string) => `${PREFIX}${scope}:${id}`;

function keys(): string[] {
  const found: string[] = [];
  for (let index = 0; index < window.sessionStorage.length; index += 1) {
    const key = window.sessionStorage.key(index);
    if (key?.startsWith(PREFIX)) found.push(key);
  }
  return found;
}

/** Removes every saved conversation (sign-out, another workspace), or those of scopes other than `keep`. */
export function clearChatStorage(keep?: string): void {
  try {
    for (const key of keys()) if (!keep || !key.startsWith(`${PREFIX}${keep}:`)) window.sessionStorage.removeItem(key);
  } catch {
    // storage blocked: nothing was saved
  }
}

export function loadConversation(key: string): ChatMessage[] {
  try {
    const raw = window.sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as ChatMessage[]) : [];
  } catch {
    return []; // storage blocked (a third-party iframe) or unreadable: start empty
  }
}

export function saveConversation(key: string, messages: ChatMessage[]): void {
  try {
    window.sessionStorage.setItem(key, JSON.stringify(messages));
  } catch {
    // storage blocked or full: the conversation lives in memory only
  }
}
