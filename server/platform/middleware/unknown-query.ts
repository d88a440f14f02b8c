// Refuses query parameters the endpoint does not accept, so a misspelt filter is an error instead of
// being silently ignored.
import type { MiddlewareHandler } from "hono";
import type { PlatformEnv } from "../context";
import { PlatformError } from "../errors";

export function rejectUnknownQuery(accepted: ReadonlySet<string>): MiddlewareHandler<PlatformEnv> {
  return async (c, next) => {
    for (const name of new URL(c.req.url).searchParams.keys()) {
      if (!accepted.has(name)) {
        const hint =
          name === "user_id" ? "; this endpoint is account-scoped, so omit user_id" : "";
        throw new PlatformError({
          type: "invalid_request_error",
          errorCode: "unknown_query_parameter",
          message: `unknown query parameter: ${name}${hint}`,
          details: { parameter: name, accepted: [...accepted].sort() },
        });
      }
    }
    await next();
  };
}
