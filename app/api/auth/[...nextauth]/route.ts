import NextAuth from "next-auth";
import { authOptions } from "@/server/framework/auth/options";
import { timedRoute } from "@/server/framework/observability/metrics";

export const runtime = "nodejs";

const handler = NextAuth(authOptions);

const timed = timedRoute("/api/auth/[...nextauth]", handler);

export { timed as GET, timed as POST };
