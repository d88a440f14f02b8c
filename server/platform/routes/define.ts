// defineRoute(): createRoute plus what every operation shares: the error responses in the
// OpenAPI document, the API-key requirement (unless public), and refusal of query parameters the
// operation does not declare.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformEnv } from "../context";
import { requireApiKey } from "../middleware/authenticate";
import { rejectUnknownQuery } from "../middleware/unknown-query";

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelope } },
});

const sharedErrors = {
  400: errorResponse("Invalid request (including unknown_query_parameter)"),
  404: errorResponse("Not found, or not in the caller's scope"),
  413: errorResponse("Body over 256 KB"),
  422: errorResponse("Validation error naming the field"),
  429: errorResponse("Too many requests"),
  500: errorResponse("Server error"),
};

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON body. `required: false` lets a caller send no body at all (every field optional). */
export const jsonBody = <T extends z.ZodType>(schema: T, options: { required?: boolean } = {}) => ({
  required: options.required ?? true,
  content: { "application/json": { schema } },
});

export const noContent = { description: "No content" };

/**
 * The success of an operation this platform does not offer (it answers 422 feature_not_available): what
 * a platform offering it returns, per the spec, so the document still says what the operation is for.
 */
export const unofferedSuccess = <T extends z.ZodType>(description: string, schema?: T) => ({
  description: `${description}. Not sent by this platform, which answers 422 feature_not_available instead.`,
  ...(schema ? { content: { "application/json": { schema } } } : {}),
});

export type Access = "api-key" | "public";

function declaredQueryKeys(query: unknown): Set<string> {
  const shape = (query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return new Set(shape ? Object.keys(shape) : []);
}

export function defineRoute<const R extends RouteConfig>(
  config: R & {
    access?: Access;
    before?: MiddlewareHandler<PlatformEnv>[];
    /** Accept query parameters beyond the declared ones: for redirects from third parties (OAuth callbacks), which add their own. */
    acceptAnyQuery?: boolean;
  },
): R & { getRoutingPath(): string } {
  const { access = "api-key", before = [], acceptAnyQuery = false, ...route } = config;
  const middleware: MiddlewareHandler<PlatformEnv>[] = [
    ...(access === "api-key" ? [requireApiKey] : []),
    ...before,
    ...(acceptAnyQuery ? [] : [rejectUnknownQuery(declaredQueryKeys(route.request?.query))]),
  ];
  const responses = {
    ...(access === "api-key" ? { 401: errorResponse("Missing, invalid, revoked or expired API key") } : {}),
    ...sharedErrors,
    ...route.responses,
  };
  return createRoute({
    ...route,
    middleware,
    responses,
    ...(access === "api-key" ? { security: [{ bearerAuth: [] }] } : { security: [] }),
  }) as unknown as R & { getRoutingPath(): string };
}
