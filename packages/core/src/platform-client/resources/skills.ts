// client.skills: /skills (playbooks a run forces with `skill` or a leading /slug) and the / picker's
// entries (invokable). user_id goes in the body of POST /skills and in the query everywhere else.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  InvokableSkill,
  InvokableSkillParams,
  Page,
  Skill,
  SkillCreateParams,
  SkillListParams,
  SkillUpdateParams,
} from "../types";
import { Resource, segment } from "./resource";

export class Skills extends Resource {
  /** POST /skills: scope agent (the default with teammate_id) offers it to that agent only. 409 for a slug the scope has. */
  create(params: SkillCreateParams, options?: RequestOptions): Promise<Skill> {
    return this.transport.json({ method: "POST", path: "/skills", body: params, userId: "body" }, options);
  }

  /** GET /skills: one page (newest first), or every skill of the scope when iterated. */
  list(params?: SkillListParams, options?: RequestOptions): PagePromise<Skill> {
    return this.paged({ path: "/skills", userId: "query" }, params, options);
  }
  listAll(params?: SkillListParams, options?: RequestOptions): Promise<Skill[]> {
    return collect(this.list(params, options));
  }

  /**
   * GET /skills/invokable: what a run of `teammate_id` can force, sorted by slug: platform commands
   * (none for a bare agent) and the active custom skills offered to it. Always one page.
   */
  invokable(params: InvokableSkillParams = {}, options?: RequestOptions): Promise<Page<InvokableSkill>> {
    return this.transport.json({ method: "GET", path: "/skills/invokable", query: params, userId: "query" }, options);
  }

  /** GET /skills/{skill_id} */
  get(skillId: number, options?: RequestOptions): Promise<Skill> {
    return this.transport.json({ method: "GET", path: `/skills/${segment(skillId)}`, userId: "query" }, options);
  }

  /** PATCH /skills/{skill_id}: name (a new name gives a new slug), description, body, status. */
  update(skillId: number, params: SkillUpdateParams, options?: RequestOptions): Promise<Skill> {
    return this.transport.json({ method: "PATCH", path: `/skills/${segment(skillId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /skills/{skill_id}: runs that forced it keep the playbook they started with. */
  async delete(skillId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/skills/${segment(skillId)}`, userId: "query" }, options);
  }
}
