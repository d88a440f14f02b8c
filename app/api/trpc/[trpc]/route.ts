import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { logger } from "@/lib/logger";
import { appRouter } from "@/server/framework/api/root";
import { createContext } from "@/server/framework/api/trpc";

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

export { handler as GET, handler as POST };
