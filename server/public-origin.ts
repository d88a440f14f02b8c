// Where the app is reached from outside: NEXTAUTH_URL, never the request's Host header (a caller
// controls it). Used for absolute URLs that leave the app (invite mail links, OAuth redirect URIs).
// Unset: the local default, http://localhost:3000 (`npm run dev` and `npm start`); production sets it.
import { env } from "@/lib/env";

const LOCAL_ORIGIN = "http://localhost:3000";

export function publicOrigin(): string {
  return (env.NEXTAUTH_URL ?? LOCAL_ORIGIN).replace(/\/+$/, "");
}
