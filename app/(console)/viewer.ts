// The signed-in viewer of a console page: session, tenants, the active one (the inlay_tenant cookie,
// checked against the database) and whether they own the installation.
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { ACTIVE_TENANT_COOKIE } from "@/server/framework/api/trpc";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { isOwner, resolveActiveMembership } from "@/server/framework/tenancy/tenants";

// Cached for the request: the console layouts and a page may each ask.
export const getViewer = cache(async (callbackPath: string = "/") => {
  const session = await getSession();
  if (!session) redirect(`/signin?callbackUrl=${encodeURIComponent(callbackPath)}`);
  const [{ prisma }, cookieStore] = await Promise.all([getDb(), cookies()]);
  const { memberships, active } = await resolveActiveMembership(
    prisma,
    session.user.id,
    cookieStore.get(ACTIVE_TENANT_COOKIE)?.value,
  );
  return { session, memberships, active, isOwner: await isOwner(prisma, session.user.id) };
});

/** For admin pages: the active tenant's admins only; others see a short refusal. */
export async function getAdminViewer(callbackPath: string) {
  const viewer = await getViewer(callbackPath);
  return { ...viewer, allowed: viewer.active?.role === "admin" };
}
