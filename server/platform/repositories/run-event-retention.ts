// Event-log retention: merges the text deltas of runs that finished long ago (repositories/run-event-compaction.ts).
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { planCompaction } from "./run-event-compaction";

/** Runs finished before `finishedBefore` whose log was not compacted since, oldest first. */
export async function findRunsToCompact(prisma: PrismaClient, finishedBefore: Date, limit: number): Promise<number[]> {
  const rows = await prisma.platformRun.findMany({
    where: { eventsCompactedAt: null, finishedAt: { lt: finishedBefore } },
    orderBy: { finishedAt: "asc" },
    take: limit,
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/**
 * Merges one run's deltas in one short transaction: marking the run first makes a second compactor
 * (a retried job overlapping the first) skip it. Returns the rows removed.
 */
export async function compactRunEvents(prisma: PrismaClient, runId: number, finishedBefore: Date): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const marked = await tx.platformRun.updateMany({
      where: { id: runId, eventsCompactedAt: null, finishedAt: { lt: finishedBefore } },
      data: { eventsCompactedAt: new Date() },
    });
    if (marked.count === 0) return 0;
    const rows = await tx.platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" }, select: { id: true, data: true } });
    const merges = planCompaction(rows.map((row) => ({ id: row.id, frame: row.data as unknown as RunFrame })));
    let removed = 0;
    for (const merge of merges) {
      await tx.platformRunEvent.update({ where: { id: merge.keep }, data: { data: merge.frame as unknown as Prisma.InputJsonObject } });
      removed += (await tx.platformRunEvent.deleteMany({ where: { runId, id: { in: merge.remove } } })).count;
    }
    return removed;
  });
}
