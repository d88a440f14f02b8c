// POST /runs/{run_id}/reply/with-files: a reply with attachments. Multipart: `payload` holds the exact
// POST /runs/{run_id}/reply JSON, `files` (repeatable) the attachments (limits in services/runs/run-files.ts).
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { RunIdParam, RunReply } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { acceptFiles } from "../../services/runs/run-files";
import { replyToRun } from "../../services/runs/run-conversation";
import { pickUserId, resolveScope } from "../../services/scope";
import { requestedSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";
import { readUpload, uploadBody, uploadBodyLimit } from "./multipart";
import { replyResponses } from "./reply";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "replyToRunWithFiles",
  method: "post",
  path: "/runs/{run_id}/reply/with-files",
  tags: ["runs"],
  summary: "Reply to a run with attachments",
  request: { params: RunIdParam, query: UserScopeQuery, headers: IdempotencyKeyHeaders, body: uploadBody("The POST /runs/{run_id}/reply JSON") },
  before: [uploadBodyLimit, idempotency],
  responses: { ...replyResponses, 413: errorResponse("A file or the whole upload over its limit"), 415: errorResponse("Not multipart/form-data") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { payload, files } = await readUpload(c, RunReply);
    const attachments = acceptFiles(files);
    const userId = pickUserId(c.req.valid("query").user_id, payload.user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId);
    const outcome = await idempotently(c, (claim) =>
      replyToRun(runServicesOf(c), scope, c.req.valid("param").run_id, { ...payload, skill: requestedSkill(payload) }, attachments, claim),
    );
    if ("replay" in outcome) return outcome.replay as never;
    const { run, after } = outcome.created;
    if (payload.stream === false) return c.json(run, 200) as never;
    return streamRun(c, run.id, after) as never;
  });
}
