// A tenant's tool views: how its iframe embed draws some tools' calls (packages/core/src/schemas/tool-views.ts).
// Tenant admins set them on the Embed page; the embed page hands them to the chat it frames
// (embedPageSettings, origins.ts).
import type { Db } from "@/server/shared/db";
import { ToolViews } from "@inlay/core/schemas/tool-views";
import { TenancyError } from "@/server/framework/tenancy/errors";
import { findToolViews, saveToolViews } from "./repository";

/** What is stored, read through the contract: a row that no longer parses draws every tool by default. */
export const readToolViews = (stored: unknown): ToolViews => {
  const result = ToolViews.safeParse(stored);
  return result.success ? result.data : {};
};

export const getToolViews = async (prisma: Db, tenantId: string): Promise<ToolViews> => readToolViews(await findToolViews(prisma, tenantId));

/** Replaces them all; a view that does not parse is refused, naming where. */
export async function setToolViews(prisma: Db, tenantId: string, views: unknown): Promise<ToolViews> {
  const result = ToolViews.safeParse(views);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.map(String).join(".");
    throw new TenancyError("BAD_REQUEST", where ? `${where}: ${issue.message}` : issue.message, "views");
  }
  await saveToolViews(prisma, tenantId, result.data);
  return result.data;
}
