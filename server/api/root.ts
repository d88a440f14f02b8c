import { accountsRouter } from "./routers/accounts";
import { invitesRouter } from "./routers/invites";
import { limitsRouter } from "./routers/limits";
import { meRouter } from "./routers/me";
import { membersRouter } from "./routers/members";
import { tenantsRouter } from "./routers/tenants";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  me: meRouter,
  accounts: accountsRouter,
  tenants: tenantsRouter,
  members: membersRouter,
  invites: invitesRouter,
  limits: limitsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
