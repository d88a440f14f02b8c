// The shop's own layout (the template's, without its web fonts: nothing is fetched at build time).
import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = { title: "Acme Shop" };

export default function RootLayout({ children }: Readonly<{ children: React.ReactNode }>) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
