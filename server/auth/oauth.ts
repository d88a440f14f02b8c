// OAuth sign-in (GitHub, Google): next-auth verifies the provider; this maps the provider's verified
// email to an Inlay user. A new user gets an account without a password. If no open invite awaits
// their email, they also get a personal tenant (they are its admin), so they land somewhere useful;
// with an invite pending, they accept it on the invite page instead.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { hasOpenInviteFor } from "@/server/tenancy/invites-repository";
import { countMemberships, createUser, findUserByEmail, type UserRecord } from "@/server/tenancy/repository";
import { createTenantWithAdmin } from "@/server/tenancy/tenants";

export async function provisionOAuthUser(
  prisma: PrismaClient,
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
      await createTenantWithAdmin(tx, `${profile.name ?? email.split("@")[0]}'s workspace`, user.id);
    }
    return user;
  });
}
