// GET /verify/status: whether the account's email is verified.
import { VerifyStatus } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { PlatformError } from "../../errors";
import { findAccount } from "../../repositories/accounts";
import { UNVERIFIED_RUN_LIMIT } from "../../services/account/verification";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getVerifyStatus",
  method: "get",
  path: "/verify/status",
  tags: ["accounts"],
  summary: "Email verification status",
  responses: { 200: json(VerifyStatus, "Verification status") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const account = await findAccount(c.var.prisma, authOf(c).accountId);
    if (!account) throw new PlatformError({ type: "not_found", message: "account not found" });
    return c.json(
      {
        email: account.email,
        verified: account.emailVerifiedAt !== null,
        verified_at: account.emailVerifiedAt?.toISOString() ?? null,
        unverified_run_limit: UNVERIFIED_RUN_LIMIT,
      },
      200,
    );
  });
}
