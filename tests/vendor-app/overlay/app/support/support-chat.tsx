"use client";
// The shop draws the whole chat itself from useInlayChat (docs/integrate.md, "Your own chat UI"): its
// own list, its own approval buttons, its own input. Inlay keeps the stream, the conversation across
// reloads and the actions.
import { useState } from "react";
import { InlayProvider, useInlayChat } from "@inlay/react";

const getSession = async () => {
  const response = await fetch("/api/inlay-session", { method: "POST" });
  if (!response.ok) throw new Error(`the shop's session route answered ${response.status}`);
  return response.json();
};

function Conversation({ agent }: { agent: string }) {
  const chat = useInlayChat({ agent, chatId: "support" });
  const [draft, setDraft] = useState("");
  return (
    <section aria-label="Support chat">
      <ol data-testid="support-log">
        {chat.messages.map((message) => (
          <li key={message.id} data-role={message.role}>
            {message.parts.map((part, index) => {
              if (part.type === "text") return <p key={index}>{part.text}</p>;
              if (part.type === "data-approval" && part.data.state === "pending") {
                const request = part.data;
                return (
                  <p key={index} data-testid="support-approval">
                    May the assistant use {request.toolName}?{" "}
                    <button type="button" onClick={() => void chat.actions.approve(request, "allow")}>
                      Yes, go ahead
                    </button>
                    <button type="button" onClick={() => void chat.actions.approve(request, "deny")}>
                      No
                    </button>
                  </p>
                );
              }
              return null;
            })}
          </li>
        ))}
      </ol>
      <p data-testid="support-status">{chat.waitingForPerson ? "waiting for you" : chat.busy ? "working" : "idle"}</p>
      {chat.error && <p role="alert">{chat.error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!draft.trim()) return;
          void chat.send(draft);
          setDraft("");
        }}
      >
        <label>
          Question <input value={draft} onChange={(event) => setDraft(event.target.value)} disabled={!chat.ready} />
        </label>
        <button type="submit" disabled={!chat.ready || chat.busy}>
          Ask
        </button>
        <button type="button" onClick={chat.newConversation} disabled={chat.busy}>
          Start over
        </button>
      </form>
    </section>
  );
}

export function SupportChat({ inlayUrl, agent }: { inlayUrl: string; agent: string }) {
  return (
    <InlayProvider url={inlayUrl} session={getSession}>
      <Conversation agent={agent} />
    </InlayProvider>
  );
}
