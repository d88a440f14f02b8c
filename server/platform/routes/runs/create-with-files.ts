// POST /runs/with-files: start a run with attachments. Multipart: `payload` holds the exact POST /runs
// JSON (the same contract validates it), `files` (repeatable) the attachments, which reach the model
// as text (text files) or file parts (images, PDF). Limits in services/runs/run-files.ts.
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { RunCreate } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { acceptFiles } from "../../services/runs/run-files";
import { requestRun } from "../../services/runs/run-target";
import { pickUserId } from "../../services/scope";
import { requestedSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse } from "../define";
import { authOf, runServicesOf } from "../request";
import { readUpload, uploadBody, uploadBodyLimit } from "./multipart";
import { route as createRoute } from "./create";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "createRunWithFiles",
  method: "post",
  path: "/runs/with-files",
  tags: ["runs"],
  summary: "Start a run with attachments",
  request: { query: UserScopeQuery, headers: IdempotencyKeyHeaders, body: uploadBody("The POST /runs JSON") },
  before: [uploadBodyLimit, idempotency],
  responses: {
    200: createRoute.responses[200],
    409: errorResponse("Idempotency-Key used with a different request or still in progress"),
    413: errorResponse("A file or the whole upload over its limit"),
    415: errorResponse("Not multipart/form-data"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { payload, files } = await readUpload(c, RunCreate);
    const attachments = acceptFiles(files);
    const userId = pickUserId(c.req.valid("query").user_id, payload.user_id);
    const outcome = await idempotently(c, (claim) => requestRun(runServicesOf(c), authOf(c), userId, { ...payload, skill: requestedSkill(payload) }, attachments, claim));
    if ("replay" in outcome) return outcome.replay as never;
    const { run, first } = outcome.created;
    if (payload.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, 0n, first && [first]) as never;
  });
}
