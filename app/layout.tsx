import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/lib/trpc/react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Inlay", template: "%s · Inlay" },
  description: "Your own AI agents, inside the tools you already use.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
