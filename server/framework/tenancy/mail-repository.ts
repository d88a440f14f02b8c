// Mail the framework sent, as the recording mailer stores it.
import type { Db } from "./repository";

export async function insertMail(
  prisma: Db,
  mail: { tenantId: string | null; to: string; subject: string; text: string; kind: string },
): Promise<void> {
  await prisma.frameworkMail.create({ data: mail });
}

export async function listMailTo(prisma: Db, to: string) {
  const rows = await prisma.frameworkMail.findMany({ where: { to }, orderBy: { id: "asc" } });
  return rows.map((row) => ({ to: row.to, subject: row.subject, text: row.text, kind: row.kind, createdAt: row.createdAt }));
}
