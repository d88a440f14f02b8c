// The client's types, all derived from the zod contracts the server validates with (packages/core/src/schemas):
// one definition, no copies. Responses are `z.infer` (what the server sends). Bodies are `z.input`
// (what a caller may write; fields with a default stay optional). Query parameters are
// `Partial<z.infer>`: on the wire they are strings, which the schemas coerce, so their input types
// are strings or `unknown`; the client takes the typed values and writes them as strings.
import type { z } from "zod";
import type * as accounts from "../schemas/accounts";
import type * as agentRepos from "../schemas/agent-repos";
import type * as agents from "../schemas/agents";
import type * as apps from "../schemas/apps";
import type * as billing from "../schemas/billing";
import type * as bridges from "../schemas/bridges";
import type * as catalog from "../schemas/catalog";
import type * as channels from "../schemas/channels";
import type * as common from "../schemas/common";
import type * as endUsers from "../schemas/end-users";
import type * as issueReports from "../schemas/issue-reports";
import type * as judgments from "../schemas/judgments";
import type * as lessons from "../schemas/lessons";
import type * as memories from "../schemas/memories";
import type * as modelConnections from "../schemas/model-connections";
import type * as payments from "../schemas/payments";
import type * as permissions from "../schemas/permissions";
import type * as runs from "../schemas/runs";
import type * as settings from "../schemas/settings";
import type * as sessions from "../schemas/sessions";
import type * as skills from "../schemas/skills";
import type * as teams from "../schemas/teams";
import type * as tasks from "../schemas/tasks";
import type * as toolServers from "../schemas/tool-servers";
import type * as triggers from "../schemas/triggers";
import type * as value from "../schemas/value";
import type * as webhooks from "../schemas/webhooks";

/** A query's parameters as typed values: every one optional (the server applies the defaults). */
type Query<S extends z.ZodType> = Partial<z.infer<S>>;
/** Fields that are path segments or the client's scope, not the caller's to repeat in the body. */
type WithoutUser<T> = Omit<T, "user_id"> & { user_id?: string };

export type Page<T> = common.Page<T>;
export type PageParams = Query<typeof common.PageQuery>;

// Accounts, keys, verification
export type Account = z.infer<typeof accounts.Account>;
export type SignupParams = z.input<typeof accounts.SignupRequest>;
export type SignupResponse = z.infer<typeof accounts.SignupResponse>;
export type SignupInviteParams = z.input<typeof accounts.SignupInviteRequest>;
export type SignupInvite = z.infer<typeof accounts.SignupInvite>;
export type TokenParams = z.input<typeof accounts.TokenRequest>;
export type TokenResponse = z.infer<typeof accounts.TokenResponse>;
export type ApiKey = z.infer<typeof accounts.ApiKeyInfo>;
export type ApiKeyWithSecret = z.infer<typeof accounts.ApiKeyWithSecret>;
export type KeyCreateParams = z.input<typeof accounts.CreateKeyRequest>;
export type AccountExport = z.infer<typeof accounts.AccountExport>;
export type VerifyStatus = z.infer<typeof accounts.VerifyStatus>;
export type VerifyResendResult = z.infer<typeof accounts.VerifyResendResult>;
export type VerifyConfirmResult = z.infer<typeof accounts.VerifyConfirmResult>;

// Sessions, password and teams
export type SessionLoginParams = z.input<typeof sessions.SessionLoginRequest>;
export type SessionRefreshParams = z.input<typeof sessions.SessionRefreshRequest>;
export type SessionPair = z.infer<typeof sessions.SessionPair>;
export type SessionsRevoked = z.infer<typeof sessions.SessionsRevoked>;
export type PasswordChangeParams = z.input<typeof sessions.PasswordChangeRequest>;
export type Team = z.infer<typeof teams.Team>;
export type TeamMember = z.infer<typeof teams.TeamMember>;
export type TeamInvite = z.infer<typeof teams.TeamInvite>;
export type TeamInvitePreview = z.infer<typeof teams.InvitePreview>;
export type TeamInviteParams = z.input<typeof teams.CreateInviteRequest>;

// Agents
export type Agent = z.infer<typeof agents.Agent>;
export type AgentSummary = z.infer<typeof agents.AgentSummary>;
export type UnarchivedAgent = z.infer<typeof agents.UnarchivedAgent>;
export type AgentCreateParams = WithoutUser<z.input<typeof agents.AgentCreate>>;
export type AgentUpdateParams = z.input<typeof agents.AgentUpdate>;
export type AgentListParams = Query<typeof agents.AgentListQuery>;
export type AgentResetParams = z.input<typeof agents.AgentReset>;
export type AgentWebhookUpdateParams = z.input<typeof agents.AgentWebhookUpdate>;
export type AgentChatChannel = z.infer<typeof agents.AgentChatChannel>;
export type ChatWorkspace = z.infer<typeof apps.ChatWorkspace>;
export type ChatChannel = z.infer<typeof apps.ChatChannel>;
export type ChatMember = z.infer<typeof apps.ChatMember>;
export type AgentRepo = z.infer<typeof agentRepos.AgentRepo>;
export type AgentRepoEnv = z.infer<typeof agentRepos.AgentRepoEnv>;
export type AgentRepoCreateParams = z.input<typeof agentRepos.AgentRepoCreate>;
export type AgentRepoEnvParams = z.input<typeof agentRepos.AgentRepoEnvPut>;
export type ApproveCommandsParams = z.input<typeof agentRepos.ApproveCommands>;
export type FetchmailParams = WithoutUser<z.input<typeof agents.FetchmailBody>>;
export type FetchmailAgent = z.infer<typeof agents.FetchmailAgent>;
export type TeammateCreateParams = WithoutUser<z.input<typeof agents.TeammateCreate>>;
export type TeammateUpdateParams = z.input<typeof agents.TeammateUpdate>;

// iMessage bridges (account-scoped: never a user_id)
export type Bridge = z.infer<typeof bridges.Bridge>;
export type BridgeWithSecret = z.infer<typeof bridges.BridgeSecret>;
export type BridgeCreateParams = Omit<z.input<typeof bridges.BridgeCreate>, "user_id">;
export type BridgeUpdateParams = Omit<z.input<typeof bridges.BridgeUpdate>, "user_id">;
export type BridgeListParams = Query<typeof bridges.BridgeListQuery>;
export type BridgeLinkCode = z.infer<typeof bridges.BridgeLinkCode>;
export type BridgeTestResult = z.infer<typeof bridges.BridgeTestResult>;
export type BridgeHandle = z.infer<typeof bridges.BridgeHandle>;
export type SystemPrompt = z.infer<typeof agents.SystemPrompt>;
export type SystemPromptParams = Omit<Query<typeof agents.SystemPromptQuery>, "user_id">;
export type AgentDocument = z.infer<typeof agents.AgentDocument>;
export type AgentDocumentWithContent = z.infer<typeof agents.AgentDocumentWithContent>;

// Catalogues
export type ModelEntry = z.infer<typeof catalog.ModelEntry>;
export type ModelListParams = Query<typeof catalog.ModelListQuery>;
export type BuiltInTool = z.infer<typeof catalog.BuiltInToolEntry>;
export type BuiltInToolListParams = Query<typeof catalog.BuiltInToolQuery>;

// Issue reports (Inlay extension: what agents filed with report_issue)
export type IssueReport = z.infer<typeof issueReports.IssueReport>;
export type IssueReportListParams = Query<typeof issueReports.ListIssueReportsQuery>;
export type IssueReportUpdateParams = z.input<typeof issueReports.UpdateIssueReportRequest>;
export type AgentTemplate = z.infer<typeof catalog.AgentTemplate>;
export type AgentTemplateListParams = Query<typeof catalog.TemplateListQuery>;

// End-users, memories, permissions, settings
export type EndUser = z.infer<typeof endUsers.EndUser>;
export type EndUserCreateParams = z.input<typeof endUsers.CreateEndUserRequest>;
export type EndUserUpdateParams = z.input<typeof endUsers.UpdateEndUserRequest>;
export type Skill = z.infer<typeof skills.Skill>;
export type SkillCreateParams = WithoutUser<z.input<typeof skills.CreateSkillRequest>>;
export type SkillUpdateParams = z.input<typeof skills.UpdateSkillRequest>;
export type SkillListParams = Query<typeof skills.ListSkillsQuery>;
export type InvokableSkill = z.infer<typeof skills.InvokableSkill>;
export type InvokableSkillParams = Query<typeof skills.InvokableSkillsQuery>;

export type Memory = z.infer<typeof memories.Memory>;
export type MemoryCreateParams = WithoutUser<z.input<typeof memories.CreateMemoryRequest>>;
export type MemoryListParams = Query<typeof memories.ListMemoriesQuery>;
export type Permission = z.infer<typeof permissions.Permission>;
export type PermissionCreateParams = WithoutUser<z.input<typeof permissions.CreatePermissionRequest>>;
export type PermissionListParams = Query<typeof permissions.ListPermissionsQuery>;
export type Settings = z.infer<typeof settings.Settings>;
export type SettingsUpdateParams = z.input<typeof settings.UpdateSettingsRequest>;

// Runs
export type Run = z.infer<typeof runs.Run>;
export type RunStatus = z.infer<typeof runs.RunStatus>;
export type RunCreateParams = WithoutUser<z.infer<typeof runs.RunCreate>>;
export type RunListParams = Query<typeof runs.RunListFullQuery>;
export type RunListItem = z.infer<typeof runs.RunListItem>;
export type RunSummary = z.infer<typeof runs.RunSummary>;
export type RunActivity = z.infer<typeof runs.RunActivity>;
export type RunCheck = z.infer<typeof runs.RunCheck>;
export type NeedsYouRun = z.infer<typeof runs.NeedsYouItem>;
export type NeedsYouParams = Query<typeof common.PageQuery>;
export type AnswerParams = z.input<typeof runs.AnswerRequest>;
export type AnswerResult = z.infer<typeof runs.AnswerResult>;
export type ApproveParams = z.input<typeof runs.ApproveRequest>;
export type ApprovalResult = z.infer<typeof runs.ApprovalResult>;
export type PermissionRequest = z.infer<typeof runs.PermissionRequest>;
export type RunMessage = z.infer<typeof runs.RunMessage>;
export type RunMessages = z.infer<typeof runs.RunMessages>;
export type RunFrame = runs.RunFrame;
export type PermissionMode = z.infer<typeof runs.PermissionModeChange>["permission_mode"];
export type RunReplyParams = WithoutUser<z.infer<typeof runs.RunReply>>;
export type FirstSessionParams = WithoutUser<z.infer<typeof runs.FirstSessionCreate>>;
/** An attachment: a File (its name and type are sent) or a Blob (sent as "blob", with its type). */
export type Attachment = Blob | File;
/** POST /runs/with-files: the POST /runs JSON (the form's `payload`) plus its `files`. */
export type RunCreateWithFilesParams = RunCreateParams & { files: Attachment[] };
/** POST /runs/{run_id}/reply/with-files: the reply JSON (the form's `payload`) plus its `files`. */
export type RunReplyWithFilesParams = RunReplyParams & { files: Attachment[] };

// Money and usage
export type TokenBalance = z.infer<typeof billing.TokenBalance>;
export type BalanceTransaction = z.infer<typeof billing.BalanceTransaction>;
export type Usage = z.infer<typeof billing.Usage>;
export type EndUserUsage = z.infer<typeof billing.EndUserUsage>;
export type EndUserUsageListParams = Query<typeof billing.EndUserUsageQuery>;
export type UsageTimeseries = z.infer<typeof billing.UsageTimeseries>;
export type UsageTimeseriesParams = Query<typeof billing.UsageTimeseriesQuery>;
export type PlanCatalogEntry = z.infer<typeof billing.PlanCatalogEntry>;
export type PlanListParams = Query<typeof billing.PlanListQuery>;
export type OverageParams = z.infer<typeof billing.UpdateOverageRequest>;

// Payments: top-ups, plan checkout, portal, receipts, auto-reload, the low-balance alert, operator credits
export type TopupParams = z.input<typeof payments.TopupRequest>;
export type CheckoutLink = z.infer<typeof payments.CheckoutLink>;
export type PlanCheckoutParams = z.input<typeof payments.PlanCheckoutRequest>;
export type PortalLink = z.infer<typeof payments.PortalLink>;
export type Receipt = z.infer<typeof payments.Receipt>;
export type ReceiptListParams = Query<typeof payments.ReceiptListQuery>;
export type ReceiptInvoice = z.infer<typeof payments.ReceiptInvoice>;
export type AutoReloadParams = z.input<typeof payments.AutoReloadRequest>;
export type AutoReloadSettings = z.infer<typeof payments.AutoReloadSettings>;
export type AlertSettingsParams = z.input<typeof payments.AlertSettingsRequest>;
export type AlertSettings = z.infer<typeof payments.AlertSettings>;
export type OperatorCreditParams = z.input<typeof payments.OperatorCreditRequest>;
export type OperatorCredit = z.infer<typeof payments.OperatorCredit>;

// Custom tool servers
export type ToolServer = z.infer<typeof toolServers.ToolServer>;
export type ToolServerTool = z.infer<typeof toolServers.ToolServerTool>;
export type ToolServerKind = toolServers.ToolServerKind;
export type ToolServerAuthType = toolServers.ToolServerAuthType;
export type RestToolDef = z.input<typeof toolServers.RestToolDef>;
export type ToolServerCreateParams = WithoutUser<z.input<typeof toolServers.CreateToolServerRequest>>;
export type ToolServerUpdateParams = z.input<typeof toolServers.UpdateToolServerRequest>;
export type ToolServerOAuthStartParams = WithoutUser<z.input<typeof toolServers.ToolServerOAuthStartRequest>>;
export type ToolServerOAuthStarted = z.infer<typeof toolServers.ToolServerOAuthStarted>;
export type ToolServerOAuthCompleteParams = WithoutUser<z.input<typeof toolServers.ToolServerOAuthCompleteRequest>>;
export type ToolServerOAuthCompleted = z.infer<typeof toolServers.ToolServerOAuthCompleted>;

// Webhooks (the event kinds type is WebhookEventType, exported beside verifyWebhook)
export type Webhook = z.infer<typeof webhooks.Webhook>;
export type WebhookCreateParams = WithoutUser<z.input<typeof webhooks.CreateWebhookRequest>>;
export type WebhookUpdateParams = z.input<typeof webhooks.UpdateWebhookRequest>;
export type WebhookListParams = Query<typeof webhooks.ListWebhooksQuery>;
export type WebhookDelivery = z.infer<typeof webhooks.WebhookDelivery>;
export type WebhookDeliveryStatus = WebhookDelivery["status"];
export type WebhookAttempt = z.infer<typeof webhooks.WebhookAttempt>;
export type WebhookDeliveryListParams = Query<typeof webhooks.ListWebhookDeliveriesQuery>;
export type WebhookReplayParams = z.input<typeof webhooks.ReplayWebhookRequest>;
export type WebhookReplay = z.infer<typeof webhooks.WebhookReplay>;

// Tasks and their triggers
export type Task = z.infer<typeof tasks.Task>;
export type TaskCreateParams = WithoutUser<z.input<typeof tasks.TaskCreate>>;
export type TaskUpdateParams = z.input<typeof tasks.TaskUpdate>;
export type TaskListParams = Query<typeof tasks.ListTasksQuery>;
export type TaskRunCreateParams = WithoutUser<z.infer<typeof tasks.TaskRunCreate>>;
export type Trigger = z.infer<typeof triggers.Trigger>;
export type TriggerCreateParams = WithoutUser<z.input<typeof triggers.TriggerCreate>>;
export type TriggerUpdateParams = z.input<typeof triggers.TriggerUpdate>;
export type TriggerListParams = Query<typeof triggers.ListTriggersQuery>;
export type TriggerFire = z.infer<typeof triggers.TriggerFire>;
export type TriggerFireListParams = Query<typeof triggers.ListTriggerFiresQuery>;
export type TaskWebhook = z.infer<typeof triggers.TaskWebhook>;
export type TaskWebhookUpdateParams = z.input<typeof triggers.TaskWebhookUpdate>;
export type TaskLessons = z.infer<typeof lessons.TaskLessons>;

// Apps and connections (the client's own contracts until packages/core/src/schemas/apps.ts is shared)
// Apps and connections
export type App = z.infer<typeof apps.App>;
export type AppAuth = z.infer<typeof apps.AppAuthKind>;
export type ConnectionStatus = z.infer<typeof apps.ConnectionStatus>;
export type AppConnection = z.infer<typeof apps.AppConnection>;
export type AppTool = z.infer<typeof apps.AppTool>;
export type AppTriggerType = z.infer<typeof apps.AppTrigger>;
export type ConnectParams = WithoutUser<z.input<typeof apps.ConnectRequest>>;
export type ConnectStarted = z.infer<typeof apps.ConnectStarted>;
export type ConnectCompleteParams = WithoutUser<z.input<typeof apps.CompleteRequest>>;
export type ConnectApiKeyParams = WithoutUser<z.input<typeof apps.ApiKeyRequest>>;
export type ConnectResult = z.infer<typeof apps.ConnectResult>;
export type ConnectionUpdateParams = z.input<typeof apps.UpdateConnectionRequest>;
export type ConnectionUpdated = z.infer<typeof apps.AppConnectionUpdated>;

// Value tracking
export type ValueUseCase = z.infer<typeof value.UseCase>;
export type ValueUseCaseCreateParams = WithoutUser<z.input<typeof value.CreateUseCaseRequest>>;
export type ValueUseCaseUpdateParams = WithoutUser<z.input<typeof value.UpdateUseCaseRequest>>;
export type ValueUseCaseListParams = Query<typeof value.ListUseCasesQuery>;
export type ValueObservation = z.infer<typeof value.Observation>;
export type ValueObservationCreateParams = WithoutUser<z.input<typeof value.CreateObservationRequest>>;
export type ValueObservationListParams = Query<typeof value.ListObservationsQuery>;
export type ValueDecision = z.infer<typeof value.ConfirmObservationRequest>["decision"];
export type ValueLinkedRuns = z.infer<typeof value.LinkedRuns>;
export type ValueReport = z.infer<typeof value.ValueReport>;
export type ValueReportParams = Query<typeof value.ValueReportQuery>;
export type Judgment = z.infer<typeof judgments.Judgment>;
// Distributed over the decide and verify shapes: Omit on the union would keep only their common fields.
type EachWithoutUser<T> = T extends unknown ? WithoutUser<T> : never;
export type JudgmentCreateParams = EachWithoutUser<z.input<typeof judgments.CreateJudgmentRequest>>;
export type JudgmentConnection = z.infer<typeof judgments.JudgmentConnection>;
// Channels
export type Channel = z.infer<typeof channels.Channel>;
export type ChannelIdentityParams = z.input<typeof channels.PutChannelIdentityRequest>;
export type ChannelInstallLinks = z.infer<typeof channels.ChannelInstallLinks>;
// Model connections
export type ModelConnection = z.infer<typeof modelConnections.ModelConnection>;
export type ModelConnectionList = z.infer<typeof modelConnections.ModelConnectionList>;
export type ModelConnectionApiKeyParams = z.input<typeof modelConnections.ApiKeyConnectionRequest>;
export type ModelConnectionPasteParams = z.input<typeof modelConnections.PasteConnectionRequest>;
export type ModelAuthorization = z.infer<typeof modelConnections.ModelAuthorization>;
export type ModelAuthorizationCompleteParams = z.input<typeof modelConnections.CompleteAuthorizationRequest>;
