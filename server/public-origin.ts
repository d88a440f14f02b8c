// Where the app is reached from outside: the configured NEXTAUTH_URL, else the request's own host.
// Used for absolute URLs that leave the app (invite mail links, OAuth redirect URIs).
import { env } from "@/lib/env";

export function publicOrigin(headers: Headers): string {
  if (env.NEXTAUTH_URL) return env.NEXTAUTH_URL.replace(/\/+$/, "");
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? "localhost:3000";
  const protocol = headers.get("x-forwarded-proto") ?? (host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https");
  return `${protocol}://${host}`;
}
