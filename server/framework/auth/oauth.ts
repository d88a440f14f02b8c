// OAuth sign-in (GitHub, Google): next-auth verifies the provider; this maps the provider's verified
// email to an Inlay user. A new user gets an account without a password. If no open invite awaits
// their email, they also get a personal tenant (they are its admin, with the sign-up limits), so they
// land somewhere useful; with an invite pending, they accept it on the invite page instead. Whether a
// new user may sign in at all is the owner's sign-up setting (oauthSignUpDecision, in next-auth's
// signIn callback).
import type { Db } from "@/server/shared/db";
import { hasOpenInviteFor } from "@/server/framework/tenancy/invites-repository";
import { countMemberships, createUser, findUserByEmail, type UserRecord } from "@/server/framework/tenancy/repository";
import { createSignUpWorkspace } from "@/server/framework/tenancy/sign-ups";

export async function provisionOAuthUser(
  prisma: Db,
  profile: { email: string; name: string | null },
  now = new Date(),
): Promise<UserRecord> {
  const email = profile.email.trim().toLowerCase();
  const existing = await findUserByEmail(prisma, email);
  if (existing) return existing;
  const invited = await hasOpenInviteFor(prisma, email, now);
  return prisma.$transaction(async (tx) => {
    // Another sign-in of the same person may have won the race.
    const again = await findUserByEmail(tx, email);
    if (again) return again;
    const user = await createUser(tx, { email, name: profile.name, passwordHash: null });
    if (!invited && (await countMemberships(tx, user.id)) === 0) {
      await createSignUpWorkspace(tx, `${profile.name ?? email.split("@")[0]}'s workspace`, user.id);
    }
    return user;
  });
}
