// createPlatformClient(): the typed client of the Agent Platform API v2, one namespace per resource.
// The framework talks to the platform only through it; vendors can use it alone. See docs/client.md.
import { AccountResource, Keys, SettingsResource, Verify } from "./resources/account";
import { Agents, Teammates } from "./resources/agents";
import { Apps } from "./resources/apps";
import { AgentTemplates, BuiltInTools, Models } from "./resources/catalog";
import { Channels } from "./resources/channels";
import { Memories, Permissions, Users } from "./resources/end-users";
import { McpServers } from "./resources/mcp-servers";
import { IssueReports } from "./resources/issue-reports";
import { Billing, Operator, UsageResource } from "./resources/money";
import { Runs } from "./resources/runs";
import { ModelConnections } from "./resources/model-connections";
import { Skills } from "./resources/skills";
import { Judgments } from "./resources/judgments";
import { Tasks, TriggersResource } from "./resources/tasks";
import { Value } from "./resources/value";
import { Teams } from "./resources/teams";
import { Webhooks } from "./resources/webhooks";
import { Bridges } from "./resources/bridges";
import { Transport, type ClientOptions, type RequestOptions } from "./transport";
import type {
  SessionLoginParams,
  SessionPair,
  SessionRefreshParams,
  SignupParams,
  SignupResponse,
  TokenParams,
  TokenResponse,
} from "./types";

export class PlatformClient {
  readonly agents: Agents;
  readonly teammates: Teammates;
  readonly agentTemplates: AgentTemplates;
  readonly runs: Runs;
  readonly memories: Memories;
  readonly skills: Skills;
  readonly judgments: Judgments;
  readonly modelConnections: ModelConnections;
  readonly permissions: Permissions;
  readonly users: Users;
  readonly settings: SettingsResource;
  readonly keys: Keys;
  readonly models: Models;
  readonly builtInTools: BuiltInTools;
  readonly issueReports: IssueReports;
  readonly account: AccountResource;
  readonly verify: Verify;
  readonly usage: UsageResource;
  readonly billing: Billing;
  /** The installation owner's operations, with the operator key (Inlay extension). */
  readonly operator: Operator;
  readonly webhooks: Webhooks;
  readonly tasks: Tasks;
  readonly triggers: TriggersResource;
  readonly apps: Apps;
  readonly channels: Channels;
  readonly mcpServers: McpServers;
  readonly value: Value;
  readonly teams: Teams;
  /** The account's iMessage bridges (account-scoped). */
  readonly bridges: Bridges;

  constructor(private readonly transport: Transport) {
    this.agents = new Agents(transport);
    this.teammates = new Teammates(transport);
    this.agentTemplates = new AgentTemplates(transport);
    this.runs = new Runs(transport);
    this.memories = new Memories(transport);
    this.skills = new Skills(transport);
    this.judgments = new Judgments(transport);
    this.modelConnections = new ModelConnections(transport);
    this.permissions = new Permissions(transport);
    this.users = new Users(transport);
    this.settings = new SettingsResource(transport);
    this.keys = new Keys(transport);
    this.models = new Models(transport);
    this.builtInTools = new BuiltInTools(transport);
    this.issueReports = new IssueReports(transport);
    this.account = new AccountResource(transport);
    this.verify = new Verify(transport);
    this.usage = new UsageResource(transport);
    this.billing = new Billing(transport);
    this.operator = new Operator(transport);
    this.webhooks = new Webhooks(transport);
    this.bridges = new Bridges(transport);
    this.tasks = new Tasks(transport);
    this.triggers = new TriggersResource(transport);
    this.apps = new Apps(transport);
    this.channels = new Channels(transport);
    this.mcpServers = new McpServers(transport);
    this.value = new Value(transport);
    this.teams = new Teams(transport);
  }

  /** The end-user this client is scoped to; undefined for the account view. */
  get userId(): string | undefined {
    return this.transport.userId;
  }

  /**
   * The same client with `user_id` applied to every call that takes it (query or body, as the spec
   * says per endpoint). A different explicit user_id on a scoped client is refused (TypeError).
   */
  forUser(userId: string): PlatformClient {
    return new PlatformClient(this.transport.withUser(userId));
  }
}

export function createPlatformClient(options: ClientOptions): PlatformClient {
  if (!options.baseUrl) throw new TypeError("createPlatformClient: baseUrl is required");
  if (!options.apiKey) throw new TypeError("createPlatformClient: apiKey is required");
  return new PlatformClient(new Transport(options));
}

/** Options of the calls that need no key. */
export type PublicOptions = Omit<ClientOptions, "apiKey">;

/** POST /signup (no auth): a new account and its default key. Not retried (a plain POST). */
export function signup(options: PublicOptions, params: SignupParams, request?: RequestOptions): Promise<SignupResponse> {
  return new Transport({ ...options, apiKey: "" }).json({ method: "POST", path: "/signup", body: params }, request);
}

/** POST /token (no auth): a fresh default key for email and password; the old one stops at once. */
export function token(options: PublicOptions, params: TokenParams, request?: RequestOptions): Promise<TokenResponse> {
  return new Transport({ ...options, apiKey: "" }).json({ method: "POST", path: "/token", body: params }, request);
}

/**
 * POST /account/sessions (no auth): a browser session pair for email and password (with `org_id`, acting
 * as that team). Build a client with `apiKey: pair.access_token`. Not retried (a plain POST).
 */
export function createSession(options: PublicOptions, params: SessionLoginParams, request?: RequestOptions): Promise<SessionPair> {
  return new Transport({ ...options, apiKey: "" }).json({ method: "POST", path: "/account/sessions", body: params }, request);
}

/** POST /account/sessions/refresh (no auth): a new pair for a refresh token, which is then used up. */
export function refreshSession(options: PublicOptions, params: SessionRefreshParams, request?: RequestOptions): Promise<SessionPair> {
  return new Transport({ ...options, apiKey: "" }).json({ method: "POST", path: "/account/sessions/refresh", body: params }, request);
}
