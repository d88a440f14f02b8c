// The end-user scope of a call. `user_id` names one of the account's end-users (their profile is
// created on first use); without it the call works in the account-level scope, which strict mode
// (require_end_user_id) refuses for the operations its settings table lists. The profile's row id
// comes from this process's cache when it holds it (infrastructure/hot-cache.ts).
import { PlatformError } from "../errors";
import { ensureEndUser } from "../repositories/end-users";
import { type DataContext, endUserCacheKey } from "../infrastructure/hot-cache";
import type { AuthContext } from "./account/auth";

export interface Scope {
  accountId: number;
  /** Row id of the end-user profile; null for the account-level scope. */
  endUserId: number | null;
  /** The caller's user_id; null for the account-level scope. */
  userId: string | null;
}

export interface ScopeOptions {
  /** This operation is one strict mode covers: refuse it without user_id when strict mode is on. */
  strict?: boolean;
}

export async function resolveScope(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined | null,
  options: ScopeOptions = {},
): Promise<Scope> {
  if (userId === undefined || userId === null) {
    if (options.strict && auth.requireEndUserId) {
      throw new PlatformError({
        type: "validation_error",
        errorCode: "end_user_id_required",
        message: "user_id: is required because this account has require_end_user_id on (see PATCH /settings)",
      });
    }
    return { accountId: auth.accountId, endUserId: null, userId: null };
  }
  const { accountId } = auth;
  const endUser = await ctx.cache.endUsers.get(endUserCacheKey(accountId, userId), async () => ({
    accountId,
    id: await ensureEndUser(ctx.prisma, accountId, userId),
  }));
  return { accountId, endUserId: endUser!.id, userId };
}

/** user_id may come in the query string or the body; both at once must agree. */
export function pickUserId(fromQuery: string | undefined, fromBody: string | null | undefined): string | undefined {
  const body = fromBody ?? undefined;
  if (fromQuery !== undefined && body !== undefined && fromQuery !== body) {
    throw new PlatformError({
      type: "validation_error",
      message: "user_id: the query string and the body name different end-users",
    });
  }
  return fromQuery ?? body;
}

/** For account-scoped data that has no end-user form: a foreign scope must not see it. */
export const sameScope = (scope: Scope, row: { accountId: number; endUserId: number | null }) =>
  row.accountId === scope.accountId && row.endUserId === scope.endUserId;

export type EndUserScope = Scope & { endUserId: number; userId: string };

/**
 * For data that exists only per end-user (memories, permissions): user_id is required whatever
 * strict mode says. Strict accounts get resolveScope's own error, so the message explains the setting.
 */
export async function resolveEndUserScope(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined | null,
  what: string,
): Promise<EndUserScope> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  if (scope.endUserId === null || scope.userId === null) {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "end_user_id_required",
      message: `user_id: is required for ${what}`,
      details: { fields: [{ field: "user_id", message: `is required for ${what}` }] },
    });
  }
  return { ...scope, endUserId: scope.endUserId, userId: scope.userId };
}
