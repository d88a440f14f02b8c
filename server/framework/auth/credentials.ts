// Email and password sign-in, apart from next-auth so it can be tested on its own.
import type { Db } from "@/server/shared/db";
import { findUserWithPasswordByEmail, type UserRecord } from "@/server/framework/tenancy/repository";
import { hashPassword, verifyPassword } from "../../shared/passwords";

// Compared against when the email is unknown, so a miss costs the same time as a wrong password.
let decoyHash: Promise<string> | undefined;

export async function verifyCredentials(
  prisma: Db,
  email: string,
  password: string,
): Promise<UserRecord | null> {
  const found = await findUserWithPasswordByEmail(prisma, email);
  if (!found?.passwordHash) {
    decoyHash ??= hashPassword("inlay-decoy-password");
    await verifyPassword(password, await decoyHash);
    return null;
  }
  return (await verifyPassword(password, found.passwordHash)) ? found.user : null;
}
