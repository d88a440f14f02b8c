import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { logger } from "@/lib/logger";
import { appRouter } from "@/server/framework/api/root";
import { createContext } from "@/server/framework/api/trpc";
import { timedRoute } from "@/server/framework/observability/metrics";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = (request: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext({ headers: request.headers, responseHeaders: resHeaders }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") logger.error({ err: error, path }, "tRPC procedure failed");
    },
  });

const timed = timedRoute("/api/trpc/[trpc]", handler);

export { timed as GET, timed as POST };
