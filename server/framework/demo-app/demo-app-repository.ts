// Storage of the development demo app (see demo-app.ts): authorization codes and tokens by their
// SHA-256 hash only, and the notes of each framework user.
import type { Db } from "@/server/shared/db";

export async function saveCode(
  prisma: Db,
  input: { codeHash: string; userId: string; redirectUri: string; codeChallenge: string; scope: string; expiresAt: Date },
): Promise<void> {
  await prisma.demoAppCode.create({ data: input });
}

/** Takes a code (one use only): the row when it existed, whether or not it has expired. */
export async function takeCode(prisma: Db, codeHash: string) {
  const row = await prisma.demoAppCode.findUnique({ where: { codeHash } });
  if (!row) return null;
  // deleteMany: two concurrent exchanges of one code cannot both win.
  const { count } = await prisma.demoAppCode.deleteMany({ where: { codeHash } });
  return count === 1 ? row : null;
}

export async function saveTokens(
  prisma: Db,
  tokens: { tokenHash: string; grantId: string; kind: "access" | "refresh"; userId: string; scope: string; expiresAt: Date }[],
): Promise<void> {
  await prisma.demoAppToken.createMany({ data: tokens });
}

export async function findToken(prisma: Db, tokenHash: string) {
  return prisma.demoAppToken.findUnique({ where: { tokenHash }, include: { user: { select: { id: true, email: true, name: true } } } });
}

/** Ends every token of a grant (refresh rotation, revocation). True when some token was still live. */
export async function revokeGrant(prisma: Db, grantId: string): Promise<boolean> {
  const { count } = await prisma.demoAppToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count > 0;
}

export async function listNotes(prisma: Db, userId: string) {
  return prisma.demoAppNote.findMany({ where: { userId }, orderBy: { createdAt: "desc" }, take: 100 });
}

export async function createNote(prisma: Db, userId: string, text: string) {
  return prisma.demoAppNote.create({ data: { userId, text } });
}
