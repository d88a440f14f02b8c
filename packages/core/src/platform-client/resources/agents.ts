// client.agents: /agents and its sub-resources (documents, system prompt, webhook, chat channel, bound
// repositories). user_id goes in the body of POST /agents (the spec lists it there) and in the query
// everywhere else, except the repositories, which are account-scoped (never a user_id).
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  Agent,
  AgentChatChannel,
  AgentCreateParams,
  AgentDocument,
  AgentDocumentWithContent,
  AgentListParams,
  AgentRepo,
  AgentRepoCreateParams,
  AgentRepoEnv,
  AgentRepoEnvParams,
  AgentResetParams,
  AgentSummary,
  AgentUpdateParams,
  AgentWebhookUpdateParams,
  ApproveCommandsParams,
  FetchmailAgent,
  FetchmailParams,
  PageParams,
  SystemPrompt,
  SystemPromptParams,
  TeammateCreateParams,
  TeammateUpdateParams,
  UnarchivedAgent,
} from "../types";
import { Resource, segment } from "./resource";

type SummaryParams = AgentListParams & { fields: "summary" };

export class AgentDocuments extends Resource {
  /** GET /agents/{agent_id}/documents */
  list(agentId: number, params?: PageParams, options?: RequestOptions): PagePromise<AgentDocument> {
    return this.paged({ path: `/agents/${segment(agentId)}/documents`, userId: "query" }, params, options);
  }
  listAll(agentId: number, params?: PageParams, options?: RequestOptions): Promise<AgentDocument[]> {
    return collect(this.list(agentId, params, options));
  }
  /** GET /agents/{agent_id}/documents/{name} (with its content) */
  get(agentId: number, name: string, options?: RequestOptions): Promise<AgentDocumentWithContent> {
    return this.transport.json(
      { method: "GET", path: `/agents/${segment(agentId)}/documents/${segment(name)}`, userId: "query" },
      options,
    );
  }
}

export class AgentSystemPrompt extends Resource {
  /**
   * GET /agents/{agent_id}/system-prompt: the exact prompt the agent's model receives; with `skill`,
   * the prompt of a run forcing that skill (422 for one a run could not force).
   */
  get(agentId: number, params: SystemPromptParams = {}, options?: RequestOptions): Promise<SystemPrompt> {
    return this.transport.json(
      { method: "GET", path: `/agents/${segment(agentId)}/system-prompt`, query: params, userId: "query" },
      options,
    );
  }
}

/** The agent's bound repositories: account-scoped, so no user_id is ever sent. */
export class AgentRepos extends Resource {
  /** POST /agents/{agent_id}/repos: binds (needs the code-host app connected at the account level). */
  bind(agentId: number, params: AgentRepoCreateParams, options?: RequestOptions): Promise<AgentRepo> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/repos`, body: params }, options);
  }
  /** GET /agents/{agent_id}/repos */
  list(agentId: number, params?: PageParams, options?: RequestOptions): PagePromise<AgentRepo> {
    return this.paged({ path: `/agents/${segment(agentId)}/repos` }, params, options);
  }
  listAll(agentId: number, params?: PageParams, options?: RequestOptions): Promise<AgentRepo[]> {
    return collect(this.list(agentId, params, options));
  }
  /** DELETE /agents/{agent_id}/repos/{repo_id} */
  async unbind(agentId: number, repoId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}` }, options);
  }
  /** GET /agents/{agent_id}/repos/{repo_id}/env: the names set (values are write-only). */
  getEnv(agentId: number, repoId: number, options?: RequestOptions): Promise<AgentRepoEnv> {
    return this.transport.json({ method: "GET", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}/env` }, options);
  }
  /** PUT /agents/{agent_id}/repos/{repo_id}/env: replaces the set (values 8-8192 characters). */
  putEnv(agentId: number, repoId: number, params: AgentRepoEnvParams, options?: RequestOptions): Promise<AgentRepoEnv> {
    return this.transport.json({ method: "PUT", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}/env`, body: params }, options);
  }
  /** DELETE /agents/{agent_id}/repos/{repo_id}/env/{key} */
  async deleteEnv(agentId: number, repoId: number, key: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}/env/${segment(key)}` }, options);
  }
  /** POST /agents/{agent_id}/repos/{repo_id}/approve-commands: approves the repository's commands as they are now (their digest). */
  approveCommands(agentId: number, repoId: number, params: ApproveCommandsParams, options?: RequestOptions): Promise<AgentRepo> {
    return this.transport.json(
      { method: "POST", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}/approve-commands`, body: params },
      options,
    );
  }
  /** DELETE /agents/{agent_id}/repos/{repo_id}/commands: withdraws the approval. */
  async clearCommands(agentId: number, repoId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}/repos/${segment(repoId)}/commands` }, options);
  }
}

export class Agents extends Resource {
  readonly documents = new AgentDocuments(this.transport);
  readonly systemPrompt = new AgentSystemPrompt(this.transport);
  readonly repos = new AgentRepos(this.transport);

  /** POST /agents (every field optional). */
  create(params: AgentCreateParams = {}, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: "/agents", body: params, userId: "body" }, options);
  }

  /** GET /agents: one page, or every agent when iterated. `fields: "summary"` lists summaries. */
  list(params: SummaryParams, options?: RequestOptions): PagePromise<AgentSummary>;
  list(params?: AgentListParams, options?: RequestOptions): PagePromise<Agent>;
  list(params?: AgentListParams, options?: RequestOptions): PagePromise<Agent> | PagePromise<AgentSummary> {
    return this.paged<Agent>({ path: "/agents", userId: "query" }, params, options);
  }
  listAll(params: SummaryParams, options?: RequestOptions): Promise<AgentSummary[]>;
  listAll(params?: AgentListParams, options?: RequestOptions): Promise<Agent[]>;
  listAll(params?: AgentListParams, options?: RequestOptions): Promise<(Agent | AgentSummary)[]> {
    return collect<Agent | AgentSummary>(this.list(params, options));
  }

  /** GET /agents/{agent_id} */
  get(agentId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "GET", path: `/agents/${segment(agentId)}`, userId: "query" }, options);
  }

  /** PATCH /agents/{agent_id}: omitted fields stay as they are. */
  update(agentId: number, params: AgentUpdateParams, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "PATCH", path: `/agents/${segment(agentId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /agents/{agent_id}: archives (a soft delete; see unarchive). */
  async archive(agentId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/unarchive: back as disabled. */
  unarchive(agentId: number, options?: RequestOptions): Promise<UnarchivedAgent> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/unarchive`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/enable */
  enable(agentId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/enable`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/disable */
  disable(agentId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/disable`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/reset: the named fields (all when omitted) back to template or defaults. */
  reset(agentId: number, params: AgentResetParams = {}, options?: RequestOptions): Promise<Agent> {
    return this.transport.json(
      { method: "POST", path: `/agents/${segment(agentId)}/reset`, body: params, userId: "query" },
      options,
    );
  }

  /**
   * PATCH /agents/{agent_id}/webhook: `enabled` pauses or resumes; an agent without a webhook gets one
   * on `enabled: true`, and `rotate: true` replaces the URL (either way `webhook_url` is in the answer, once).
   */
  updateWebhook(agentId: number, params: AgentWebhookUpdateParams, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "PATCH", path: `/agents/${segment(agentId)}/webhook`, body: params, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/chat-channel: a new channel in the account's chat workspace, bound to the agent. */
  createChatChannel(agentId: number, options?: RequestOptions): Promise<AgentChatChannel> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/chat-channel`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/email-inbox: the agent gets an email address (email_address in the answer). */
  enableEmailInbox(agentId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/email-inbox`, userId: "query" }, options);
  }

  /** DELETE /agents/{agent_id}/email-inbox */
  disableEmailInbox(agentId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}/email-inbox`, userId: "query" }, options);
  }

  /** POST /agents/{agent_id}/fetchmail: the agent polls a mailbox (the answer never holds the password). */
  enableFetchmail(agentId: number, params: FetchmailParams, options?: RequestOptions): Promise<FetchmailAgent> {
    return this.transport.json({ method: "POST", path: `/agents/${segment(agentId)}/fetchmail`, body: params, userId: "query" }, options);
  }

  /** DELETE /agents/{agent_id}/fetchmail */
  disableFetchmail(agentId: number, options?: RequestOptions): Promise<FetchmailAgent> {
    return this.transport.json({ method: "DELETE", path: `/agents/${segment(agentId)}/fetchmail`, userId: "query" }, options);
  }
}

/** client.teammates: /teammates, agents by another name (the spec's teammate routes); answers are agents. */
export class Teammates extends Resource {
  /** POST /teammates */
  create(params: TeammateCreateParams = {}, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: "/teammates", body: params, userId: "query" }, options);
  }

  /** GET /teammates: one page, or every teammate when iterated. */
  list(params?: PageParams, options?: RequestOptions): PagePromise<Agent> {
    return this.paged({ path: "/teammates", userId: "query" }, params, options);
  }
  listAll(params?: PageParams, options?: RequestOptions): Promise<Agent[]> {
    return collect(this.list(params, options));
  }

  /** GET /teammates/{teammate_id} */
  get(teammateId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "GET", path: `/teammates/${segment(teammateId)}`, userId: "query" }, options);
  }

  /** PATCH /teammates/{teammate_id} */
  update(teammateId: number, params: TeammateUpdateParams, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "PATCH", path: `/teammates/${segment(teammateId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /teammates/{teammate_id}: archives, as DELETE /agents/{agent_id} does. */
  async archive(teammateId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/teammates/${segment(teammateId)}`, userId: "query" }, options);
  }

  /** POST /teammates/{teammate_id}/email-inbox */
  enableEmailInbox(teammateId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "POST", path: `/teammates/${segment(teammateId)}/email-inbox`, userId: "query" }, options);
  }

  /** DELETE /teammates/{teammate_id}/email-inbox */
  disableEmailInbox(teammateId: number, options?: RequestOptions): Promise<Agent> {
    return this.transport.json({ method: "DELETE", path: `/teammates/${segment(teammateId)}/email-inbox`, userId: "query" }, options);
  }
}
