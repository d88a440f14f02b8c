// createPlatformApp(): the Agent Platform API v2 as one Hono app, mounted at /api/v2 by Next.js
// (app/api/v2/[[...route]]/route.ts) and by the standalone server (server/platform/standalone.ts).
// Errors of every kind leave through onError/notFound here, in the spec's envelope.
import { OpenAPIHono, type Hook } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { ZodError } from "zod";
import { logger } from "@/lib/logger";
import {
  PLATFORM_BASE_PATH,
  type PlatformApp,
  type PlatformContext,
  type PlatformDeps,
  type PlatformEnv,
} from "./context";
import { PlatformError, errorEnvelope, errorTypeForStatus } from "./errors";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseAway } from "../shared/db-errors";
import { authenticate } from "./middleware/authenticate";
import { rateLimit } from "./middleware/rate-limit";
import { closeOnUnreadBody } from "./middleware/unread-body";
import { jsonBodyLimit } from "./middleware/body-limit";
import { withLogContext } from "@/lib/log-context";
import { accessLog } from "./middleware/access-log";
import { httpMetrics } from "./middleware/http-metrics";
import { httpTracing } from "./middleware/http-tracing";
import { redactedPath } from "./http/request-labels";
import { requestId } from "./middleware/request-id";
// payments (docs/platform-api.md, "Payments")
import * as topupBalance from "./routes/billing/topup";
import * as checkoutPlan from "./routes/billing/checkout";
import * as billingPortal from "./routes/billing/portal";
import * as listReceipts from "./routes/billing/receipts";
import * as getReceiptInvoice from "./routes/billing/receipt-invoice";
import * as updateAutoReload from "./routes/billing/auto-reload";
import * as updateAlertSettings from "./routes/billing/alert-settings";
import * as receiveStripeWebhook from "./routes/billing/stripe-webhook";
import * as checkoutReturn from "./routes/billing/checkout-return";
import * as manualPaymentPage from "./routes/billing/manual-pay-page";
import * as receiptPage from "./routes/billing/receipt-page";
import * as billingPortalPage from "./routes/billing/portal-page";
import * as operatorCredit from "./routes/operator/credit";
import * as operatorSignupInvite from "./routes/operator/signup-invite";
import * as signup from "./routes/account/signup";
import * as archiveAgent from "./routes/agents/archive";
import * as createAgent from "./routes/agents/create";
import * as disableAgent from "./routes/agents/disable";
import * as enableAgent from "./routes/agents/enable";
import * as getAgent from "./routes/agents/get";
import * as getAgentDocument from "./routes/agents/get-document";
import * as listAgents from "./routes/agents/list";
import * as listAgentDocuments from "./routes/agents/list-documents";
import * as resetAgent from "./routes/agents/reset";
import * as agentSystemPrompt from "./routes/agents/system-prompt";
import * as unarchiveAgent from "./routes/agents/unarchive";
import * as updateAgent from "./routes/agents/update";
// Email inboxes and fetchmail (docs/platform-api.md, "Email")
import * as enableAgentEmailInbox from "./routes/agents/enable-email-inbox";
import * as disableAgentEmailInbox from "./routes/agents/disable-email-inbox";
import * as enableAgentFetchmail from "./routes/agents/enable-fetchmail";
import * as disableAgentFetchmail from "./routes/agents/disable-fetchmail";
// agents: webhook, chat channel, repositories
import * as updateAgentWebhook from "./routes/agents/update-webhook";
import * as createAgentChatChannel from "./routes/agents/create-chat-channel";
import * as receiveAgentWebhook from "./routes/agent-webhooks/receive";
import * as bindAgentRepo from "./routes/agent-repos/bind";
import * as listAgentRepos from "./routes/agent-repos/list";
import * as unbindAgentRepo from "./routes/agent-repos/unbind";
import * as approveAgentRepoCommands from "./routes/agent-repos/approve-commands";
import * as clearAgentRepoCommands from "./routes/agent-repos/clear-commands";
import * as getAgentRepoEnv from "./routes/agent-repos/get-env";
import * as putAgentRepoEnv from "./routes/agent-repos/put-env";
import * as deleteAgentRepoEnvKey from "./routes/agent-repos/delete-env-key";
import * as createBridge from "./routes/bridges/create";
import * as listBridges from "./routes/bridges/list";
import * as provisionBridge from "./routes/bridges/provision";
import * as provisionAltBridge from "./routes/bridges/provision-alt";
import * as getBridge from "./routes/bridges/get";
import * as updateBridge from "./routes/bridges/update";
import * as deleteBridge from "./routes/bridges/delete";
import * as createBridgeLinkCode from "./routes/bridges/link-code";
import * as rotateBridgeSecret from "./routes/bridges/rotate-secret";
import * as testBridge from "./routes/bridges/test";
import * as listBridgeHandles from "./routes/bridges/list-handles";
import * as deleteBridgeHandle from "./routes/bridges/delete-handle";
import * as receiveBridgeMessage from "./routes/bridges/inbound";
import * as enableTeammateEmailInbox from "./routes/teammates/enable-email-inbox";
import * as disableTeammateEmailInbox from "./routes/teammates/disable-email-inbox";
import * as agentTemplates from "./routes/catalog/agent-templates";
import * as builtInTools from "./routes/catalog/built-in-tools";
import * as getIssueReport from "./routes/issue-reports/get";
import * as listIssueReports from "./routes/issue-reports/list";
import * as updateIssueReport from "./routes/issue-reports/update";
import * as models from "./routes/catalog/models";
import * as applyDefaultModelConnection from "./routes/model-connections/apply-default";
import * as cancelModelAuthorization from "./routes/model-connections/cancel-authorization";
import * as clearPreferredModelConnection from "./routes/model-connections/clear-preferred-default";
import * as completeModelAuthorization from "./routes/model-connections/complete-authorization";
import * as connectModelProviderWithApiKey from "./routes/model-connections/connect-api-key";
import * as setModelConnectionDefaultModel from "./routes/model-connections/default-model";
import * as disconnectModelConnection from "./routes/model-connections/disconnect";
import * as disconnectModelProviderAccount from "./routes/model-connections/disconnect-account";
import * as listModelConnections from "./routes/model-connections/list";
import * as pasteModelConnection from "./routes/model-connections/paste";
import * as getModelAuthorization from "./routes/model-connections/poll-authorization";
import * as startModelAuthorization from "./routes/model-connections/start-authorization";
import * as createEndUser from "./routes/end-users/create";
import * as deleteEndUser from "./routes/end-users/delete";
import * as getEndUser from "./routes/end-users/get";
import * as listEndUsers from "./routes/end-users/list";
import * as updateEndUser from "./routes/end-users/update";
import * as createMemory from "./routes/memories/create";
import * as deleteMemory from "./routes/memories/delete";
import * as listMemories from "./routes/memories/list";
import * as createSkill from "./routes/skills/create";
import * as deleteSkill from "./routes/skills/delete";
import * as getSkill from "./routes/skills/get";
import * as listInvokableSkills from "./routes/skills/invokable";
import * as listSkills from "./routes/skills/list";
import * as updateSkill from "./routes/skills/update";
import * as createJudgment from "./routes/judgments/create";
import * as getJudgment from "./routes/judgments/get";
import * as judgmentConnection from "./routes/judgments/connection";
import * as createTaskTrigger from "./routes/triggers/create";
import * as deleteTaskTrigger from "./routes/triggers/delete";
import * as listTriggerFires from "./routes/triggers/fires";
import * as listTriggers from "./routes/triggers/list";
import * as listTaskTriggers from "./routes/triggers/list-task";
import * as updateTaskTrigger from "./routes/triggers/update";
import * as deleteTaskWebhook from "./routes/task-webhooks/delete";
import * as enableTaskWebhook from "./routes/task-webhooks/enable";
import * as receiveTaskWebhook from "./routes/task-webhooks/receive";
import * as updateTaskWebhook from "./routes/task-webhooks/update";
import * as createWebhook from "./routes/webhooks/create";
import * as deleteWebhook from "./routes/webhooks/delete";
import * as listWebhookDeliveries from "./routes/webhooks/deliveries";
import * as getWebhook from "./routes/webhooks/get";
import * as listWebhooks from "./routes/webhooks/list";
import * as replayWebhook from "./routes/webhooks/replay";
import * as retryWebhookDelivery from "./routes/webhooks/retry-delivery";
import * as sendWebhookTestEvent from "./routes/webhooks/test";
import * as updateWebhook from "./routes/webhooks/update";
import * as createToolServer from "./routes/mcp-servers/create";
import * as listToolServers from "./routes/mcp-servers/list";
import * as getToolServer from "./routes/mcp-servers/get";
import * as updateToolServer from "./routes/mcp-servers/update";
import * as deleteToolServer from "./routes/mcp-servers/delete";
import * as approveToolServer from "./routes/mcp-servers/approve";
import * as startToolServerOAuth from "./routes/mcp-servers/oauth-start";
import * as completeToolServerOAuth from "./routes/mcp-servers/oauth-complete";
import * as toolServerOAuthCallback from "./routes/mcp-servers/oauth-callback";
import * as errorDocs from "./routes/meta/error-docs";
import * as openapi from "./routes/meta/openapi";
import * as createPermission from "./routes/permissions/create";
import * as deletePermission from "./routes/permissions/delete";
import * as listPermissions from "./routes/permissions/list";
import { inputGuard } from "./middleware/input-guard";
import * as answerRun from "./routes/runs/answer";
import * as approveRun from "./routes/runs/approve";
import * as cancelRun from "./routes/runs/cancel";
import * as createRun from "./routes/runs/create";
import * as runEvents from "./routes/runs/events";
import * as runMessages from "./routes/runs/messages";
import * as getRun from "./routes/runs/get";
import * as runPermissions from "./routes/runs/permissions";
// replies, first sessions, attachments, permission mode
import * as createRunWithFiles from "./routes/runs/create-with-files";
import * as firstSession from "./routes/runs/first-session";
import * as changeRunPermissionMode from "./routes/runs/permission-mode";
import * as replyToRun from "./routes/runs/reply";
import * as replyToRunWithFiles from "./routes/runs/reply-with-files";
// run lists
import * as runActivity from "./routes/runs/activity";
import * as checkRuns from "./routes/runs/check";
import * as listRuns from "./routes/runs/list";
import * as runsNeedingYou from "./routes/runs/needs-you";
import * as getSettings from "./routes/settings/get";
import * as updateSettings from "./routes/settings/update";
import * as verifyConfirm from "./routes/verify/confirm";
import * as verifyResend from "./routes/verify/resend";
import * as verifyStatus from "./routes/verify/status";
import * as archiveTeammate from "./routes/teammates/archive";
import * as createTeammate from "./routes/teammates/create";
import * as getTeammate from "./routes/teammates/get";
import * as listTeammates from "./routes/teammates/list";
import * as updateTeammate from "./routes/teammates/update";
// tasks
import * as createTask from "./routes/tasks/create";
import * as deleteTask from "./routes/tasks/delete";
import * as getTask from "./routes/tasks/get";
import * as listTasks from "./routes/tasks/list";
import * as runTask from "./routes/tasks/run";
import * as updateTask from "./routes/tasks/update";
// lessons of a task
import * as clearTaskLessons from "./routes/tasks/clear-lessons";
import * as deleteTaskLesson from "./routes/tasks/delete-lesson";
import * as listTaskLessons from "./routes/tasks/list-lessons";
// keys and account
import * as deleteAccount from "./routes/account/delete";
import * as exportAccount from "./routes/account/export";
import * as token from "./routes/account/token";
// sessions, password and teams
import * as createSession from "./routes/account/create-session";
import * as refreshSession from "./routes/account/refresh-session";
import * as revokeSessions from "./routes/account/revoke-sessions";
import * as changePassword from "./routes/account/change-password";
import * as listTeams from "./routes/teams/list";
import * as acceptTeamInvite from "./routes/teams/accept-invite";
import * as previewTeamInvite from "./routes/teams/preview-invite";
import * as createTeamInvite from "./routes/teams/create-invite";
import * as revokeTeamInvite from "./routes/teams/revoke-invite";
import * as removeTeamMember from "./routes/teams/remove-member";
import * as createKey from "./routes/keys/create";
import * as getDefaultKey from "./routes/keys/get-default";
import * as listKeys from "./routes/keys/list";
import * as revokeKey from "./routes/keys/revoke";
import * as revokeDefaultKey from "./routes/keys/revoke-default";
import * as rotateKey from "./routes/keys/rotate";
import * as rotateDefaultKey from "./routes/keys/rotate-default";
// apps and connections
import * as listApps from "./routes/apps/list";
import * as listAppConnections from "./routes/apps/list-connections";
import * as updateAppConnection from "./routes/apps/update-connection";
import * as deleteAppConnection from "./routes/apps/delete-connection";
import * as appOAuthCallback from "./routes/apps/oauth-callback";
import * as listConnectionsOfApp from "./routes/apps/list-app-connections";
import * as deleteConnectionsOfApp from "./routes/apps/delete-app-connections";
import * as listAppTools from "./routes/apps/tools";
import * as listAppTriggers from "./routes/apps/triggers";
import * as connectApp from "./routes/apps/connect";
import * as completeAppConnect from "./routes/apps/complete";
import * as connectAppWithApiKey from "./routes/apps/api-key";
import * as connectAppExternalOAuth from "./routes/apps/external-oauth";
import * as completeAppExternalOAuth from "./routes/apps/external-oauth-complete";
import * as provisionApp from "./routes/apps/provision";
import * as installChatApp from "./routes/apps/install";
import * as claimChatInstall from "./routes/apps/claim";
import * as listChatChannels from "./routes/apps/channels";
import * as listChatMembers from "./routes/apps/members";
import * as listChatWorkspaces from "./routes/apps/workspaces";
import * as deleteChatWorkspace from "./routes/apps/delete-workspace";
import * as listAppCustomers from "./routes/apps/customers";
import * as selectAppCustomer from "./routes/apps/select-customer";
import * as listAppSites from "./routes/apps/sites";
import * as selectAppSite from "./routes/apps/select-site";
// channels
import * as listChannels from "./routes/channels/list";
import * as getChannelInstallLinks from "./routes/channels/install-links";
import * as putChannelIdentity from "./routes/channels/put-identity";
// usage and billing
import * as getBalance from "./routes/billing/balance";
import * as listEndUserUsage from "./routes/usage/end-users";
import * as getUsage from "./routes/usage/get";
import * as usageTimeseries from "./routes/usage/timeseries";
// value tracking
import * as confirmValueObservation from "./routes/value/confirm-observation";
import * as createValueObservation from "./routes/value/create-observation";
import * as createValueUseCase from "./routes/value/create-use-case";
import * as getValueUseCase from "./routes/value/get-use-case";
import * as linkValueRuns from "./routes/value/link-runs";
import * as listValueObservations from "./routes/value/list-observations";
import * as listValueUseCases from "./routes/value/list-use-cases";
import * as getValueReport from "./routes/value/report";
import * as updateValueUseCase from "./routes/value/update-use-case";
// plans, usage limits and overage
import * as activateFreePlan from "./routes/billing/activate-free";
import * as updateOverage from "./routes/billing/overage";
import * as listPlans from "./routes/billing/plans";

/** Every operation, registered in this order. One module per operation: routes/<resource>/<op>.ts. */
const operations: { register(app: PlatformApp): void }[] = [
  openapi,
  errorDocs,
  signup,
  verifyStatus,
  verifyResend,
  verifyConfirm,
  // run lists
  // (before GET /runs/{run_id}: Hono tries handlers in registration order, so /runs/activity must come first)
  listRuns,
  runActivity,
  checkRuns,
  runsNeedingYou,
  // runs
  createRun,
  getRun,
  runEvents,
  runMessages,
  cancelRun,
  approveRun,
  answerRun,
  runPermissions,
  // replies, first sessions, attachments, permission mode
  firstSession,
  createRunWithFiles,
  replyToRun,
  replyToRunWithFiles,
  changeRunPermissionMode,
  // agents, teammates and catalogues
  createAgent,
  listAgents,
  getAgent,
  updateAgent,
  archiveAgent,
  enableAgent,
  disableAgent,
  unarchiveAgent,
  resetAgent,
  agentSystemPrompt,
  listAgentDocuments,
  getAgentDocument,
  createTeammate,
  listTeammates,
  getTeammate,
  updateTeammate,
  archiveTeammate,
  // email inboxes and fetchmail
  enableAgentEmailInbox,
  disableAgentEmailInbox,
  enableAgentFetchmail,
  disableAgentFetchmail,
  // agents: webhook, chat channel, repositories
  updateAgentWebhook,
  receiveAgentWebhook,
  createAgentChatChannel,
  bindAgentRepo,
  listAgentRepos,
  unbindAgentRepo,
  approveAgentRepoCommands,
  clearAgentRepoCommands,
  getAgentRepoEnv,
  putAgentRepoEnv,
  deleteAgentRepoEnvKey,
  // iMessage bridges
  createBridge,
  listBridges,
  provisionBridge,
  provisionAltBridge,
  getBridge,
  updateBridge,
  deleteBridge,
  createBridgeLinkCode,
  rotateBridgeSecret,
  testBridge,
  listBridgeHandles,
  deleteBridgeHandle,
  receiveBridgeMessage,
  enableTeammateEmailInbox,
  disableTeammateEmailInbox,
  models,
  builtInTools,
  agentTemplates,
  // model connections (/model-connections/preferred-default before /model-connections/{provider})
  listModelConnections,
  clearPreferredModelConnection,
  disconnectModelConnection,
  connectModelProviderWithApiKey,
  pasteModelConnection,
  applyDefaultModelConnection,
  startModelAuthorization,
  getModelAuthorization,
  completeModelAuthorization,
  cancelModelAuthorization,
  setModelConnectionDefaultModel,
  disconnectModelProviderAccount,
  // issues agents reported (report_issue)
  listIssueReports,
  getIssueReport,
  updateIssueReport,
  // tasks
  createTask,
  listTasks,
  getTask,
  updateTask,
  deleteTask,
  runTask,
  // lessons of a task
  listTaskLessons,
  deleteTaskLesson,
  clearTaskLessons,
  // keys and account
  token,
  createKey,
  getDefaultKey,
  revokeDefaultKey,
  rotateDefaultKey,
  listKeys,
  revokeKey,
  rotateKey,
  exportAccount,
  deleteAccount,
  // sessions, password and teams (/account/sessions/refresh and /revoke are distinct paths;
  // /teams/invites/accept before /teams/{org_id}/invites)
  createSession,
  refreshSession,
  revokeSessions,
  changePassword,
  listTeams,
  acceptTeamInvite,
  previewTeamInvite,
  createTeamInvite,
  revokeTeamInvite,
  removeTeamMember,
  // end-users, memories, permissions, settings
  createEndUser,
  listEndUsers,
  getEndUser,
  updateEndUser,
  deleteEndUser,
  createMemory,
  listMemories,
  deleteMemory,
  // skills (/skills/invokable before /skills/{skill_id})
  createSkill,
  listSkills,
  listInvokableSkills,
  getSkill,
  updateSkill,
  deleteSkill,
  // value tracking
  createValueUseCase,
  listValueUseCases,
  getValueUseCase,
  updateValueUseCase,
  createValueObservation,
  listValueObservations,
  linkValueRuns,
  confirmValueObservation,
  getValueReport,
  // judgments (/judgments/connection before /judgments/{judgment_id})
  judgmentConnection,
  createJudgment,
  getJudgment,
  createPermission,
  listPermissions,
  deletePermission,
  getSettings,
  updateSettings,
  // task triggers
  createTaskTrigger,
  listTaskTriggers,
  updateTaskTrigger,
  deleteTaskTrigger,
  listTriggerFires,
  listTriggers,
  // task webhooks, and their inbound URL (public)
  enableTaskWebhook,
  updateTaskWebhook,
  deleteTaskWebhook,
  receiveTaskWebhook,
  // webhooks
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  retryWebhookDelivery,
  replayWebhook,
  sendWebhookTestEvent,
  // custom tool servers (the public OAuth callback before /mcp-servers/{server_id})
  toolServerOAuthCallback,
  createToolServer,
  listToolServers,
  getToolServer,
  updateToolServer,
  deleteToolServer,
  approveToolServer,
  startToolServerOAuth,
  completeToolServerOAuth,
  // apps and connections (/apps/connections/{id} before /apps/{app}/connections)
  listApps,
  listAppConnections,
  updateAppConnection,
  deleteAppConnection,
  appOAuthCallback,
  listConnectionsOfApp,
  deleteConnectionsOfApp,
  listAppTools,
  listAppTriggers,
  connectApp,
  completeAppConnect,
  connectAppWithApiKey,
  connectAppExternalOAuth,
  completeAppExternalOAuth,
  provisionApp,
  installChatApp,
  claimChatInstall,
  listChatChannels,
  listChatMembers,
  listChatWorkspaces,
  deleteChatWorkspace,
  listAppCustomers,
  selectAppCustomer,
  listAppSites,
  selectAppSite,
  // channels
  listChannels,
  getChannelInstallLinks,
  putChannelIdentity,
  // usage and billing
  getUsage,
  listEndUserUsage,
  usageTimeseries,
  getBalance,
  // plans, usage limits and overage
  listPlans,
  activateFreePlan,
  updateOverage,
  // payments: top-ups, plans, portal, receipts, thresholds; the provider's webhook, the pages people
  // visit, and the operator's credits
  topupBalance,
  checkoutPlan,
  billingPortal,
  listReceipts,
  getReceiptInvoice,
  updateAutoReload,
  updateAlertSettings,
  receiveStripeWebhook,
  checkoutReturn,
  manualPaymentPage,
  receiptPage,
  billingPortalPage,
  operatorCredit,
  operatorSignupInvite,
];

export const MAX_BODY_BYTES = 256 * 1024;
const UPLOAD_PATH = /\/with-files\/?$/;

export type { PlatformDeps };

/** Turns zod issues into one 422 whose message names each failing field. */
export function validationError(error: ZodError): PlatformError {
  const fields = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "body";
    return { field, message: issue.message };
  });
  return new PlatformError({
    type: "validation_error",
    message: fields.map(({ field, message }) => `${field}: ${message}`).join("; "),
    details: { fields },
  });
}

const validationHook: Hook<unknown, PlatformEnv, string, unknown> = (result) => {
  if (!result.success) throw validationError(result.error);
};

function respond(c: PlatformContext, error: PlatformError, publicBaseUrl: string) {
  const id = c.get("requestId") ?? `req_${crypto.randomUUID().replaceAll("-", "")}`;
  const headers = { ...error.headers, "x-request-id": id };
  return c.json(errorEnvelope(error, id, publicBaseUrl), error.status as 400, headers);
}

function toPlatformError(error: unknown): PlatformError | undefined {
  if (error instanceof PlatformError) return error;
  if (error instanceof ZodError) return validationError(error);
  if (error instanceof HTTPException) {
    const type = errorTypeForStatus(error.status);
    const message =
      error.status === 413 ? "request body exceeds the 256 KB limit" : error.message || "invalid request";
    return new PlatformError({ type, status: error.status, message });
  }
  // The database is away or busy (a restart, every pool connection held by slow statements): the
  // request may succeed shortly, so the client is told when to try again rather than given a 500.
  if (isDatabaseAway(error)) {
    logger.warn({ err: error }, "the database did not answer in time: 503");
    return new PlatformError({
      type: "api_error",
      status: 503,
      errorCode: "database_unavailable",
      message: "the database is unavailable or busy; try again shortly",
      headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    });
  }
  return undefined;
}

/** Hono paths (`/agents/:id`) as patterns, to tell "no such path" (404) from "wrong method" (405). */
function methodIndex(app: PlatformApp): (path: string) => string[] {
  let compiled: { pattern: RegExp; method: string }[] | undefined;
  return (path) => {
    // Built on first use: every route is registered by then.
    compiled ??= app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => ({
        method: route.method,
        pattern: new RegExp(
          `^${route.path
            .split("/")
            .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
            .join("/")}/?$`,
        ),
      }));
    return [...new Set(compiled.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method))];
  };
}

export function createPlatformApp(deps: PlatformDeps): PlatformApp {
  const app: PlatformApp = new OpenAPIHono<PlatformEnv>({ defaultHook: validationHook }).basePath(
    PLATFORM_BASE_PATH,
  );
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: `An API key (Authorization: Bearer ${deps.config.keyPrefix}…) or a session access token (inlay_sa_…, POST /account/sessions)`,
  });

  // Order matters: the id first so every response has one; the key before the limiter so it can
  // charge the account (or the IP for a missing or invalid key).
  app.use("*", requestId());
  // Every line logged while the request is served carries its id (and, once known, account and run).
  app.use("*", (c, next) => withLogContext({ requestId: c.get("requestId") }, next));
  app.use("*", accessLog);
  app.use("*", httpMetrics);
  app.use("*", httpTracing);
  app.use("*", closeOnUnreadBody);
  const bodyWithinLimit = jsonBodyLimit(MAX_BODY_BYTES, () => {
    throw new PlatformError({ type: "payload_too_large", message: "request body exceeds the 256 KB limit" });
  });
  // The with-files uploads have their own, larger limit (routes/runs/multipart.ts). A GET or HEAD
  // carries no body the platform reads; asking for one would make @hono/node-server build a full
  // Request for every read (a third of a warm GET's CPU).
  const bodiless = new Set(["GET", "HEAD"]);
  app.use("*", (c, next) => (bodiless.has(c.req.method) || UPLOAD_PATH.test(c.req.path) ? next() : bodyWithinLimit(c, next)));
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    c.set("prisma", (await deps.database()).prisma);
    c.set("runtime", await deps.runtime());
    await next();
  });
  app.use("*", authenticate);
  app.use("*", rateLimit);
  app.use("*", inputGuard);

  for (const operation of operations) operation.register(app);

  const allowedMethods = methodIndex(app);
  app.notFound((c) => {
    const allow = allowedMethods(c.req.path);
    if (allow.length > 0) {
      return respond(
        c,
        new PlatformError({
          type: "method_not_allowed",
          message: `${c.req.method} is not supported on ${c.req.path}; use ${allow.join(", ")}`,
          headers: { allow: allow.join(", ") },
        }),
        deps.config.publicBaseUrl,
      );
    }
    return respond(c, new PlatformError({ type: "not_found", message: `no route matches ${c.req.path}` }), deps.config.publicBaseUrl);
  });

  app.onError((error, c) => {
    const known = toPlatformError(error);
    if (known) return respond(c, known, deps.config.publicBaseUrl);
    // The details stay in the log; the caller gets the request id to quote.
    logger.error({ err: error, requestId: c.get("requestId"), path: redactedPath(c.req.path) }, "unhandled platform error");
    return respond(c, new PlatformError({ type: "api_error", message: "internal server error" }), deps.config.publicBaseUrl);
  });

  return app;
}
