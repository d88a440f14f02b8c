// The full chat page's script (/chat, written by server/framework/chat/page.ts): an entry of the widget bundle
// (server/framework/embed/widget-build.ts), so <InlayChat> runs on Preact (react and react-dom are aliased to
// preact/compat there), without React and Next's client runtime, as in the embed. The page is
// same-origin with the bridge, so the session cookie authenticates the chat; the page writes the
// checked agent and mode, and the agent's name for the header, on the root element's data attributes.
import "./chat-page.css";
import "@inlay/react/styles.css";
import { createRoot } from "react-dom/client";
import { InlayChat, type InlayChatProps } from "@inlay/react/inlay-chat";
import { InlayProvider } from "@inlay/react/provider";
import { clearChatStorage } from "@inlay/react/storage";

const root = document.getElementById("inlay-chat");
const { agent, title, mode, scope } = root?.dataset ?? {};
if (root && agent) {
  // The page writes a mode only once it has checked it is one.
  const permissionMode = mode as InlayChatProps["permissionMode"];
  root.replaceChildren();
  createRoot(root).render(
    <InlayProvider storageScope={scope}>
      <InlayChat
        agent={agent}
        title={title}
        chatId={`console-${agent}-${permissionMode ?? "default"}`}
        permissionMode={permissionMode}
        subtitle="Your AI teammate"
        suggestions={["What can you do for me?", "Summarise my open tasks", "Draft a reply to a customer"]}
      />
    </InlayProvider>,
  );
}

// What next-auth's signOut() does, without loading next-auth's client (it reads process.env, which a
// browser bundle has not got): its CSRF token, then the sign-out POST, which clears the session cookie.
document.querySelector<HTMLButtonElement>("[data-sign-out]")?.addEventListener("click", async (event) => {
  const button = event.currentTarget as HTMLButtonElement;
  button.disabled = true;
  clearChatStorage();
  try {
    const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
    await fetch("/api/auth/signout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, callbackUrl: "/signin", json: "true" }),
    });
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- this page has no Next router: a full load is the way
    window.location.assign("/signin");
  } catch {
    button.disabled = false;
  }
});
