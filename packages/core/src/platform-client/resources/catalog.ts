// Catalogues: client.models, client.builtInTools, client.agentTemplates.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  AgentTemplate,
  AgentTemplateListParams,
  BuiltInTool,
  BuiltInToolListParams,
  ModelEntry,
  ModelListParams,
  Page,
} from "../types";
import { Resource } from "./resource";

export class Models extends Resource {
  /** GET /models: the catalogue (one page of up to `limit`, default 500; no cursor). */
  list(params: ModelListParams = {}, options?: RequestOptions): Promise<Page<ModelEntry>> {
    return this.transport.json({ method: "GET", path: "/models", query: params }, options);
  }
}

export class BuiltInTools extends Resource {
  /** GET /built-in-tools: resolved for one agent with `teammate_id` (in the client's user scope). */
  list(params: BuiltInToolListParams = {}, options?: RequestOptions): Promise<Page<BuiltInTool>> {
    return this.transport.json({ method: "GET", path: "/built-in-tools", query: params, userId: "query" }, options);
  }
}

export class AgentTemplates extends Resource {
  /** GET /agent-templates (no auth needed); the cursor is the template's slug. */
  list(params?: AgentTemplateListParams, options?: RequestOptions): PagePromise<AgentTemplate> {
    return this.paged<AgentTemplate>({ path: "/agent-templates" }, params, options, (template) => template.slug);
  }
  listAll(params?: AgentTemplateListParams, options?: RequestOptions): Promise<AgentTemplate[]> {
    return collect(this.list(params, options));
  }
}
