import { accountsRouter } from "./routers/accounts";
import { agentsRouter } from "./routers/agents";
import { billingRouter } from "./routers/billing";
import { connectionsRouter } from "./routers/connections";
import { embedSecretsRouter } from "./routers/embed-secrets";
import { invitesRouter } from "./routers/invites";
import { limitsRouter } from "./routers/limits";
import { meRouter } from "./routers/me";
import { memoriesRouter } from "./routers/memories";
import { membersRouter } from "./routers/members";
import { permissionsRouter } from "./routers/permissions";
import { runsRouter } from "./routers/runs";
import { signUpsRouter } from "./routers/sign-ups";
import { tasksRouter } from "./routers/tasks";
import { tenantsRouter } from "./routers/tenants";
import { toolsRouter } from "./routers/tools";
import { usageRouter } from "./routers/usage";
import { webhooksRouter } from "./routers/webhooks";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  me: meRouter,
  accounts: accountsRouter,
  tenants: tenantsRouter,
  signUps: signUpsRouter,
  members: membersRouter,
  invites: invitesRouter,
  limits: limitsRouter,
  agents: agentsRouter,
  runs: runsRouter,
  tasks: tasksRouter,
  memories: memoriesRouter,
  permissions: permissionsRouter,
  usage: usageRouter,
  webhooks: webhooksRouter,
  connections: connectionsRouter,
  tools: toolsRouter,
  billing: billingRouter,
  embedSecrets: embedSecretsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
