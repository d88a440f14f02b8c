// Sign-up with email and password: creates the user and a new tenant with them as its first admin.
// (Joining an existing tenant goes through an invite: server/tenancy/invites.ts.)
import type { SignUpInput } from "@/lib/schemas/tenancy";
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { TenancyError } from "@/server/tenancy/errors";
import { createUser, findUserByEmail, type TenantRecord, type UserRecord } from "@/server/tenancy/repository";
import { createTenantWithAdmin } from "@/server/tenancy/tenants";
import { hashPassword } from "./password";

const EMAIL_TAKEN = "An account with this email exists: sign in instead.";

export async function signUp(prisma: PrismaClient, input: SignUpInput): Promise<{ user: UserRecord; tenant: TenantRecord }> {
  if (await findUserByEmail(prisma, input.email)) throw new TenancyError("CONFLICT", EMAIL_TAKEN, "email");
  // scrypt runs on libuv's thread pool (server/auth/password.ts) and before the transaction opens:
  // neither the event loop nor PGlite's single connection waits for it.
  const passwordHash = await hashPassword(input.password);
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await createUser(tx, { email: input.email, name: input.name, passwordHash });
      const tenant = await createTenantWithAdmin(tx, input.tenantName, user.id);
      return { user, tenant };
    });
  } catch (error) {
    // Two sign-ups with one email at once: the unique index decides.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new TenancyError("CONFLICT", EMAIL_TAKEN, "email");
    }
    throw error;
  }
}
