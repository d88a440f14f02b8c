// POST /operator/signup-invites (Inlay extension): the installation's owner invites one email address
// to sign up while sign-up is invite-only (INLAY_SIGNUP=invite). Authenticated with the operator key.
import { SignupInvite, SignupInviteRequest } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { authenticateOperator } from "../../services/billing/payments";
import { INVITE_MAX_DAYS, signupInvite } from "../../services/account/signup-policy";
import { defineRoute, errorResponse, json, jsonBody } from "../define";

const DEFAULT_DAYS = 7;

export const route = defineRoute({
  operationId: "operatorSignupInvite",
  method: "post",
  path: "/operator/signup-invites",
  tags: ["operator"],
  summary: "Invite an email address to sign up (Inlay extension; the installation's owner, with the operator key)",
  description: `X-Operator-Key: <operator key> (or Authorization: Bearer <operator key>). The code is valid for that email only, ${DEFAULT_DAYS} days unless expires_in_days (at most ${INVITE_MAX_DAYS}) says otherwise; POST /signup takes it as invite_code.`,
  access: "public",
  request: { body: jsonBody(SignupInviteRequest) },
  responses: {
    201: json(SignupInvite, "The invite code, shown once"),
    401: errorResponse("Missing or wrong operator key, or none configured"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => {
    const presented = c.req.header("x-operator-key") ?? /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
    authenticateOperator(c.var.deps.config, presented);
    const body = c.req.valid("json");
    const expiresAt = new Date(Date.now() + (body.expires_in_days ?? DEFAULT_DAYS) * 24 * 3600_000);
    const email = body.email.trim().toLowerCase();
    return c.json({ email, invite_code: signupInvite(c.var.deps.config, email, expiresAt), expires_at: expiresAt.toISOString() }, 201);
  });
}
