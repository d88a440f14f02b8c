// GET, PUT and DELETE /judgments/connection: the account's own provider key for customer-funded
// judgments (account-scoped: no user_id; the key is write-only).
import { JudgmentConnection, PutJudgmentConnectionRequest } from "@inlay/core/schemas/judgments";
import type { PlatformApp } from "../../context";
import { deleteJudgmentConnection, getJudgmentConnection, putJudgmentConnection } from "../../services/models/judgments";
import { defineRoute, json, jsonBody, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const getRoute = defineRoute({
  operationId: "getJudgmentConnection",
  method: "get",
  path: "/judgments/connection",
  tags: ["judgments"],
  summary: "Get the judgment connection",
  responses: { 200: json(JudgmentConnection, "The connection's metadata (never the key)") },
});

export const putRoute = defineRoute({
  operationId: "putJudgmentConnection",
  method: "put",
  path: "/judgments/connection",
  tags: ["judgments"],
  summary: "Store or rotate the customer key for judgments",
  request: { body: jsonBody(PutJudgmentConnectionRequest) },
  responses: { 200: json(JudgmentConnection, "The connection's metadata (never the key)") },
});

export const deleteRoute = defineRoute({
  operationId: "deleteJudgmentConnection",
  method: "delete",
  path: "/judgments/connection",
  tags: ["judgments"],
  summary: "Remove the customer key: later judgments are platform-funded",
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(getRoute, async (c) => c.json(await getJudgmentConnection(servicesOf(c), authOf(c).accountId), 200));
  app.openapi(putRoute, async (c) =>
    c.json(await putJudgmentConnection(servicesOf(c), authOf(c).accountId, c.req.valid("json").api_key), 200),
  );
  app.openapi(deleteRoute, async (c) => {
    await deleteJudgmentConnection(c.var.prisma, authOf(c).accountId);
    return c.body(null, 204);
  });
}
