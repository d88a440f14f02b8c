// Where the app is reached from outside: NEXTAUTH_URL, never the request's Host header (a caller
// controls it). Used for absolute URLs that leave the app (invite mail links, OAuth redirect URIs), for
// the embedded platform's links, and by next-auth (server/framework/auth/options.ts hands it this origin). Unset:
// http://localhost on the port this process listens on (Next sets PORT: `npm run dev -- -p 3150` or
// `npm start -- -p 3150` gives http://localhost:3150); a deployment sets NEXTAUTH_URL (the server
// warns at start when production runs without it).
import { env } from "@/lib/env";

export function publicOrigin(): string {
  return (env.NEXTAUTH_URL ?? `http://localhost:${env.PORT ?? 3000}`).replace(/\/+$/, "");
}
