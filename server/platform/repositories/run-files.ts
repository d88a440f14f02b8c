// Attachments of a run (POST /runs/with-files, /runs/{id}/reply/with-files): the bytes live in the
// database, bound to the run.
import type { PrismaClient } from "@/server/generated/prisma/client";

export interface NewRunFile {
  name: string;
  mimeType: string;
  content: Uint8Array<ArrayBuffer>;
}

/** Stores the files and returns their ids in the order given. */
export async function insertRunFiles(prisma: PrismaClient, runId: number, files: NewRunFile[]): Promise<number[]> {
  const ids: number[] = [];
  // One by one: the ids must pair with the files, which createMany does not promise.
  for (const file of files) {
    const row = await prisma.platformRunFile.create({
      data: { runId, name: file.name, mimeType: file.mimeType, sizeBytes: file.content.byteLength, content: file.content },
      select: { id: true },
    });
    ids.push(row.id);
  }
  return ids;
}

export const countRunFiles = (prisma: PrismaClient, runId: number) => prisma.platformRunFile.count({ where: { runId } });

/** Every file of the run in upload order (the order `inlay-file:<n>` counts in). */
export const listRunFileContents = (prisma: PrismaClient, runId: number) =>
  prisma.platformRunFile.findMany({ where: { runId }, orderBy: { id: "asc" }, select: { name: true, mimeType: true, content: true } });
