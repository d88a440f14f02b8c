"use client";
import { clearChatStorage } from "@inlay/react/storage";
import { Button } from "@/components/ui/button";

// next-auth's client is loaded on the click: the header is on every console page, and nothing else
// there needs it.
export function SignOutButton() {
  return (
    <Button
      variant="ghost"
      onClick={async () => {
        clearChatStorage();
        const { signOut } = await import("next-auth/react");
        await signOut({ callbackUrl: "/signin" });
      }}
    >
      Sign out
    </Button>
  );
}
