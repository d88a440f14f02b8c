// GET /account/export: everything the account owns, as one JSON document (no secrets).
import { AccountExport } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { exportAccount } from "../../services/account/account-export";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "exportAccount",
  method: "get",
  path: "/account/export",
  tags: ["accounts"],
  summary: "Export all account data",
  responses: { 200: json(AccountExport, "The account's data; never password or key hashes, secrets or tokens") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await exportAccount({ prisma: c.var.prisma, config: servicesOf(c).config }, authOf(c).accountId), 200));
}
