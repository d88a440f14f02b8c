// Sign-up with email and password, as the installation owner's setting allows (server/framework/tenancy/sign-ups.ts):
// open creates the user and a new tenant (with the sign-up limits) with them as its first admin;
// approval holds the sign-up until the owner approves it; closed refuses. (Joining an existing tenant
// goes through an invite: server/framework/tenancy/invites.ts.)
import type { SignUpInput } from "@inlay/core/schemas/tenancy";
import type { Db } from "@/server/shared/db";
import { isUniqueViolation } from "@/server/shared/db-errors";
import { TenancyError } from "@/server/framework/tenancy/errors";
import { createUser, findUserByEmail, type TenantRecord, type UserRecord } from "@/server/framework/tenancy/repository";
import { EMAIL_TAKEN, SIGN_UP_CLOSED, createSignUpWorkspace, getSignUpMode, holdSignUp } from "@/server/framework/tenancy/sign-ups";
import { hashPassword } from "../../shared/passwords";

export type SignUpResult = { status: "created"; user: UserRecord; tenant: TenantRecord } | { status: "pending" };

export async function signUp(prisma: Db, input: SignUpInput): Promise<SignUpResult> {
  const mode = await getSignUpMode(prisma);
  if (mode === "closed") throw new TenancyError("FORBIDDEN", SIGN_UP_CLOSED);
  if (await findUserByEmail(prisma, input.email)) throw new TenancyError("CONFLICT", EMAIL_TAKEN, "email");
  // scrypt runs on libuv's thread pool (server/shared/passwords.ts) and before the transaction opens:
  // neither the event loop nor PGlite's single connection waits for it.
  const passwordHash = await hashPassword(input.password);
  if (mode === "approval") {
    await holdSignUp(prisma, { email: input.email, name: input.name, passwordHash, tenantName: input.tenantName });
    return { status: "pending" };
  }
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await createUser(tx, { email: input.email, name: input.name, passwordHash });
      const tenant = await createSignUpWorkspace(tx, input.tenantName, user.id);
      return { status: "created" as const, user, tenant };
    });
  } catch (error) {
    // Two sign-ups with one email at once: the unique index decides.
    if (isUniqueViolation(error)) {
      throw new TenancyError("CONFLICT", EMAIL_TAKEN, "email");
    }
    throw error;
  }
}
