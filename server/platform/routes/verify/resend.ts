// POST /verify/resend: send the verification email again.
import { VerifyResendResult as ResendResult } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { PlatformError } from "../../errors";
import { findAccount } from "../../repositories/accounts";
import { sendVerificationMail } from "../../services/account/verification";
import { defineRoute, json } from "../define";
import { authOf, baseUrlOf } from "../request";

export const route = defineRoute({
  operationId: "resendVerification",
  method: "post",
  path: "/verify/resend",
  tags: ["accounts"],
  summary: "Resend the verification email",
  responses: { 200: json(ResendResult, "Sent") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const account = await findAccount(c.var.prisma, authOf(c).accountId);
    if (!account) throw new PlatformError({ type: "not_found", message: "account not found" });
    if (account.emailVerifiedAt) {
      throw new PlatformError({
        type: "conflict_error",
        errorCode: "email_already_verified",
        message: "this account's email is already verified",
      });
    }
    await sendVerificationMail(c.var.prisma, c.var.deps.mailer, account, baseUrlOf(c));
    return c.json({ sent: true, email: account.email }, 200);
  });
}
