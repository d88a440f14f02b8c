// GET /verify/confirm?token=…: the link in the verification email (no auth; an Inlay extension,
// since the spec leaves the link's target to the service).
import { z } from "zod";
import { VerifyConfirmResult as Confirmed } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { PlatformError } from "../../errors";
import { confirmVerification } from "../../services/account/verification";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "confirmVerification",
  method: "get",
  path: "/verify/confirm",
  tags: ["accounts"],
  summary: "Follow the emailed verification link",
  access: "public",
  request: { query: z.object({ token: z.string().min(1).max(200) }) },
  responses: { 200: json(Confirmed, "The email is verified") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    if (!(await confirmVerification(c.var.prisma, c.req.valid("query").token))) {
      throw new PlatformError({
        type: "not_found",
        errorCode: "verification_link_invalid",
        message: "this verification link is unknown, used or expired; ask for a new one with POST /verify/resend",
      });
    }
    return c.json({ verified: true as const }, 200);
  });
}
