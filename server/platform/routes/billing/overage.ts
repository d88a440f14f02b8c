// PATCH /billing/overage: turn opt-in overage on or off and set its monthly cap. On no plan the choice
// is kept for the plan the account starts next (services/billing/plans.ts, setOverage).
import { UpdateOverageRequest, Usage } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { setOverage } from "../../services/billing/plans";
import { getUsage } from "../../services/billing/usage";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "updateOverage",
  method: "patch",
  path: "/billing/overage",
  tags: ["billing"],
  summary: "Set overage and its monthly cap",
  request: { body: jsonBody(UpdateOverageRequest) },
  responses: {
    200: json(Usage, "The account's usage with the new overage settings"),
    409: errorResponse("The account's plan has no overage"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { accountId } = authOf(c);
    await setOverage(c.var.prisma, accountId, c.req.valid("json"));
    return c.json(await getUsage(c.var.prisma, accountId), 200);
  });
}
