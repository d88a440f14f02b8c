// Everything an account owns, read in one pass for GET /account/export. It reaches across every
// platform table through the account's relations, so a new table that belongs to an account must
// be added here too, or the export silently leaves it out.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { withPayment } from "./payments";

const byId = { orderBy: { id: "asc" } } as const;
const byIdWithUserId = { ...byId, include: { endUser: { select: { externalId: true } } } } as const;

export const loadAccountData = (prisma: PrismaClient, accountId: number) =>
  prisma.platformAccount.findUnique({
    where: { id: accountId },
    include: {
      apiKeys: byId,
      endUsers: byId,
      agents: byId,
      agentDocuments: byId,
      issueReports: byId,
      memories: byId,
      permissions: byId,
      mail: byId,
      // Sealed secrets, scripts' sources and OAuth grants stay out: the mappers below never read them.
      toolServers: byIdWithUserId,
      skills: byIdWithUserId,
      runs: byIdWithUserId,
      tasks: {
        ...byIdWithUserId,
        include: {
          ...byIdWithUserId.include,
          triggers: { ...byId, include: { task: { select: { endUser: { select: { externalId: true } } } } } },
        },
      },
      webhooks: byIdWithUserId,
      // Their credentials stay out: the mapper never reads them.
      appConnections: { orderBy: { createdAt: "asc" }, include: byIdWithUserId.include },
      bridges: byId,
      transactions: byId,
      receipts: { ...byId, include: withPayment },
      judgments: byIdWithUserId,
      // Env values stay out (sealed): the mapper shows their keys.
      agentRepos: byId,
      valueUseCases: {
        ...byIdWithUserId,
        include: {
          ...byIdWithUserId.include,
          _count: { select: { runLinks: true } },
          runLinks: { select: { runId: true }, orderBy: { runId: "asc" } },
          observations: byId,
        },
      },
    },
  });

export type AccountData = NonNullable<Awaited<ReturnType<typeof loadAccountData>>>;
