// Reads `Authorization: Bearer <key or session access token>` for every request and records the outcome in c.var.auth;
// routes that need a key refuse with requireApiKey. Deciding early lets the rate limiter charge the
// right bucket (the account, or the IP for a missing or invalid key).
import type { MiddlewareHandler } from "hono";
import { addLogContext } from "@/lib/log-context";
import type { PlatformEnv } from "../context";
import { PlatformError } from "../errors";
import { authenticateApiKey } from "../services/account/auth";
import { authenticateSession, isSessionToken } from "../services/account/sessions";

export const authenticate: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const header = c.req.header("authorization");
  if (header === undefined) {
    c.set("auth", undefined);
  } else {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const data = { prisma: c.var.prisma, cache: c.var.runtime.cache };
    c.set(
      "auth",
      !token
        ? null
        : isSessionToken(token)
          ? await authenticateSession(data, token)
          : await authenticateApiKey(data, token, c.var.deps.config.keyPrefix),
    );
    // Every line this request logs from here on names the account it acts as.
    const accountId = c.var.auth?.accountId;
    if (accountId !== undefined) addLogContext({ accountId });
  }
  await next();
};

export const requireApiKey: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const auth = c.var.auth;
  if (auth === undefined) {
    throw new PlatformError({
      type: "authentication_error",
      message: "missing API key: send Authorization: Bearer <key>",
    });
  }
  if (auth === null) {
    throw new PlatformError({ type: "authentication_error", message: "invalid, revoked or expired API key or session" });
  }
  await next();
};

/**
 * Credentials and the account's existence are its owners' (docs/platform-api.md, "Teams"): a session of
 * a team's admin or member may not mint keys or delete the account, or a removed member could keep a key.
 */
export const requireAccountOwner: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const session = c.var.auth?.session;
  if (session && session.role !== "owner") {
    throw new PlatformError({
      type: "permission_error",
      errorCode: "team_role_insufficient",
      message: `only the account's owners may manage its keys or delete it; your role is ${session.role}`,
    });
  }
  await next();
};
