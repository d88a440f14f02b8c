import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Inlay", template: "%s · Inlay" },
  description: "Your own AI agents, inside the tools you already use.",
};

// No client providers here: every page loads what this layout loads, the chat and the embed page
// included. The tRPC/TanStack provider wraps only the pages that use it.
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">{children}</body>
    </html>
  );
}
