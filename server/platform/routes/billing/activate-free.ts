// POST /billing/activate-free: puts an account on no plan (prepaid) on the free plan; 409 otherwise.
import { Usage } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { activateFree } from "../../services/billing/plans";
import { getUsage } from "../../services/billing/usage";
import { defineRoute, errorResponse, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "activateFreePlan",
  method: "post",
  path: "/billing/activate-free",
  tags: ["billing"],
  summary: "Activate the free plan",
  responses: {
    200: json(Usage, "The account's usage on the free plan"),
    409: errorResponse("The account is already on a plan (free_path_available is false), or no free plan is offered"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { accountId } = authOf(c);
    await activateFree(c.var.prisma, accountId);
    return c.json(await getUsage(c.var.prisma, accountId), 200);
  });
}
