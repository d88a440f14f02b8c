// The installation's sign-up setting (one row) and sign-ups held for the owner's approval.
import type { SignUpMode } from "@inlay/core/schemas/tenancy";
import { Prisma } from "@/server/generated/prisma/client";
import type { Db } from "./repository";

const SETTINGS_ID = 1;

/** open when the row was never written (a new installation). */
export async function findSignUpMode(prisma: Db): Promise<SignUpMode> {
  const row = await prisma.installationSettings.findUnique({ where: { id: SETTINGS_ID }, select: { signUpMode: true } });
  const mode = row?.signUpMode;
  return mode === "approval" || mode === "closed" ? mode : "open";
}

export async function saveSignUpMode(prisma: Db, mode: SignUpMode): Promise<void> {
  await prisma.installationSettings.upsert({ where: { id: SETTINGS_ID }, create: { id: SETTINGS_ID, signUpMode: mode }, update: { signUpMode: mode } });
}

export interface SignUpRequestRecord {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  tenantName: string;
  createdAt: Date;
}

/** false when a request for the email is already held (the unique index decides). */
export async function insertSignUpRequest(
  prisma: Db,
  request: { email: string; name: string | null; passwordHash: string | null; tenantName: string },
): Promise<boolean> {
  try {
    await prisma.signUpRequest.create({ data: request });
    return true;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return false;
    throw error;
  }
}

export const findSignUpRequestByEmail = (prisma: Db, email: string): Promise<SignUpRequestRecord | null> =>
  prisma.signUpRequest.findUnique({ where: { email } });

export const listSignUpRequestRows = (prisma: Db): Promise<SignUpRequestRecord[]> =>
  prisma.signUpRequest.findMany({ orderBy: { createdAt: "asc" } });

/** Deletes and returns the request: of two owners deciding at once, one gets it. */
export async function takeSignUpRequest(prisma: Db, id: string): Promise<SignUpRequestRecord | null> {
  const row = await prisma.signUpRequest.findUnique({ where: { id } });
  if (!row) return null;
  const { count } = await prisma.signUpRequest.deleteMany({ where: { id } });
  return count === 1 ? row : null;
}
