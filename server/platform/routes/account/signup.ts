// POST /signup: create an account and return its default key (no auth).
import { SignupRequest, SignupResponse } from "@/lib/schemas/accounts";
import type { PlatformApp } from "../../context";
import { signupRateLimit } from "../../middleware/rate-limit";
import { signup } from "../../services/account/accounts";
import { billingSettings } from "../../services/billing/billing";
import { baseUrlOf } from "../request";
import { defineRoute, json, jsonBody } from "../define";

export const route = defineRoute({
  operationId: "signup",
  method: "post",
  path: "/signup",
  tags: ["accounts"],
  summary: "Create an account and its default API key",
  access: "public",
  before: [signupRateLimit],
  request: { body: jsonBody(SignupRequest) },
  responses: { 201: json(SignupResponse, "The account and its default key (shown once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
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
