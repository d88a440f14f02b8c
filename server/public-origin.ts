// Where the app is reached from outside: NEXTAUTH_URL, never the request's Host header (a caller
// controls it). Used for absolute URLs that leave the app (invite mail links, OAuth redirect URIs) and
// for the embedded platform's links. Unset: http://localhost on the port this process listens on (Next
// sets PORT: `npm run dev -- -p 3150` gives http://localhost:3150); production sets NEXTAUTH_URL.
import { env } from "@/lib/env";

export function publicOrigin(): string {
  return (env.NEXTAUTH_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/+$/, "");
}
