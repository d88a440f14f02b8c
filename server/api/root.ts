import { meRouter } from "./routers/me";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  me: meRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
