// connections: a member's app connections through their own platform end-user (list, start, complete,
// connectApiKey, disconnect, relabel), and for tenant admins which apps the tenant offers and who is
// connected to what (statuses only). A member connects only the apps their tenant offers.
import { z } from "zod";
import {
  ConnectionMade,
  ConnectionRemoved,
  ConnectionStarted,
  MemberApp,
  MemberConnection,
  MemberConnectionsRow,
  TenantAppRow,
  TenantAppSet,
  connectionApiKeyInput,
  connectionCompleteInput,
  connectionDisconnectInput,
  connectionRelabelInput,
  connectionStartInput,
  tenantAppInput,
} from "@inlay/core/schemas/connections";
import {
  completeConnection,
  connectWithApiKey,
  disconnect,
  listMemberApps,
  listMemberConnections,
  listTenantApps,
  relabelConnection,
  setTenantAppOffered,
  startConnection,
} from "@/server/framework/tenancy/connections";
import { adminProcedure, router, tenantProcedure } from "../trpc";

export const connectionsRouter = router({
  /** The apps the tenant offers, with the caller's status and connections. */
  list: tenantProcedure.output(z.array(MemberApp)).query(async ({ ctx }) => listMemberApps(ctx.prisma, await ctx.platform(), ctx.tenant.id)),

  /** An OAuth connection: where to send the browser (a popup, or the page itself). */
  start: tenantProcedure.input(connectionStartInput).output(ConnectionStarted).mutation(async ({ ctx, input }) =>
    startConnection(
      ctx.prisma,
      await ctx.platform(),
      { tenantId: ctx.tenant.id, userId: ctx.userId },
      input,
      ctx.baseUrl ?? "http://localhost:3000",
    ),
  ),

  complete: tenantProcedure
    .input(connectionCompleteInput)
    .output(ConnectionMade)
    .mutation(async ({ ctx, input }) => completeConnection(ctx.prisma, await ctx.platform(), ctx.tenant.id, input)),

  connectApiKey: tenantProcedure
    .input(connectionApiKeyInput)
    .output(ConnectionMade)
    .mutation(async ({ ctx, input }) => connectWithApiKey(ctx.prisma, await ctx.platform(), ctx.tenant.id, input)),

  disconnect: tenantProcedure.input(connectionDisconnectInput).output(ConnectionRemoved).mutation(async ({ ctx, input }) => {
    await disconnect(await ctx.platform(), input);
    return { app: input.app };
  }),

  relabel: tenantProcedure.input(connectionRelabelInput).output(MemberConnection).mutation(async ({ ctx, input }) => relabelConnection(await ctx.platform(), input)),

  /** Tenant admins: the catalogue, each app offered or not. */
  tenantApps: adminProcedure.output(z.array(TenantAppRow)).query(async ({ ctx }) => listTenantApps(ctx.prisma, await ctx.connection(), ctx.tenant.id)),

  setTenantApp: adminProcedure
    .input(tenantAppInput)
    .output(TenantAppSet)
    .mutation(async ({ ctx, input }) => setTenantAppOffered(ctx.prisma, await ctx.connection(), ctx.tenant.id, input)),

  /** Tenant admins: each member's status with each offered app (never a token or an account detail beyond its label). */
  memberConnections: adminProcedure.output(z.array(MemberConnectionsRow)).query(async ({ ctx }) => listMemberConnections(ctx.prisma, await ctx.connection(), ctx.tenant.id)),
});
