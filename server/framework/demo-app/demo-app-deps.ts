// The demo app's dependencies in the running server: this process's database, public origin and
// secret, and the next-auth session of the request.
import { env } from "@/lib/env";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { publicOrigin } from "@/server/shared/public-origin";
import { demoAppEnabled, type DemoAppDeps } from "./demo-app";

export async function demoAppDeps(): Promise<DemoAppDeps> {
  const origin = publicOrigin();
  const platformOrigin = env.INLAY_PLATFORM_PUBLIC_URL ? new URL(env.INLAY_PLATFORM_PUBLIC_URL).origin : origin;
  return {
    enabled: demoAppEnabled(),
    prisma: (await getDb()).prisma,
    origin,
    redirectOrigins: [...new Set([new URL(origin).origin, platformOrigin])],
    secret: env.NEXTAUTH_SECRET,
    user: async () => {
      const session = await getSession();
      return session?.user.id ? { id: session.user.id, email: session.user.email ?? "" } : null;
    },
  };
}
