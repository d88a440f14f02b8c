// POST /signup: create an account and return its default key (no auth; INLAY_SIGNUP decides who may).
import { SignupRequest, SignupResponse } from "@inlay/core/schemas/accounts";
import { inProcessCaller, type PlatformApp } from "../../context";
import { signupRateLimit } from "../../middleware/rate-limit";
import { signup } from "../../services/account/accounts";
import { admitSignup } from "../../services/account/signup-policy";
import { billingSettings } from "../../services/billing/billing";
import { baseUrlOf } from "../request";
import { defineRoute, errorResponse, json, jsonBody } from "../define";

export const route = defineRoute({
  operationId: "signup",
  method: "post",
  path: "/signup",
  tags: ["accounts"],
  summary: "Create an account and its default API key",
  access: "public",
  before: [signupRateLimit],
  request: { body: jsonBody(SignupRequest) },
  responses: {
    201: json(SignupResponse, "The account and its default key (shown once)"),
    401: errorResponse("A wrong X-Operator-Key"),
    403: errorResponse("signup_closed, invite_required or invite_invalid: this installation's INLAY_SIGNUP refuses the sign-up"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    admitSignup(c.var.deps.config, {
      email: body.email,
      inviteCode: body.invite_code,
      operatorKey: c.req.header("x-operator-key"),
      inProcess: inProcessCaller(c),
    });
    const result = await signup(
      c.var.prisma,
      {
        mailer: c.var.deps.mailer,
        keyPrefix: c.var.deps.config.keyPrefix,
        baseUrl: baseUrlOf(c),
        signupCreditMicros: billingSettings(c.var.deps.config).signupCreditMicros,
      },
      {
        email: body.email,
        firstName: body.first_name,
        password: body.password,
        product: body.product,
        requireEndUserId: body.require_end_user_id,
        source: "api",
      },
    );
    return c.json(result, 201);
  });
}
