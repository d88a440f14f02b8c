// Contracts of the framework's tenancy procedures (sign-up, tenants, members, invites, limits), shared
// by the tRPC routers and the console forms, so both validate the same way.
import { z } from "zod";
import { formatCents } from "../money";

export const tenantRoleSchema = z.enum(["member", "admin"]);
export type TenantRole = z.infer<typeof tenantRoleSchema>;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "Enter a valid email address." }).max(254));

export const passwordSchema = z
  .string()
  .min(10, { message: "Use at least 10 characters." })
  .max(200, { message: "Use at most 200 characters." });

export const personNameSchema = z
  .string()
  .trim()
  .min(1, { message: "Enter your name." })
  .max(100, { message: "Use at most 100 characters." });

export const tenantNameSchema = z
  .string()
  .trim()
  .min(2, { message: "Use at least 2 characters." })
  .max(80, { message: "Use at most 80 characters." });

/** Who may create a workspace by signing up: anyone, anyone once the owner approves, or no one. */
export const signUpModes = ["open", "approval", "closed"] as const;
export const signUpModeSchema = z.enum(signUpModes, { message: "Choose open, approval or closed." });
export type SignUpMode = z.infer<typeof signUpModeSchema>;

export const signUpInput = z.object({
  name: personNameSchema,
  email: emailSchema,
  password: passwordSchema,
  tenantName: tenantNameSchema,
});
export type SignUpInput = z.infer<typeof signUpInput>;

export const inviteTokenSchema = z.string().min(20).max(200);

export const createInviteInput = z.object({ email: emailSchema, role: tenantRoleSchema.default("member") });
export const acceptInviteInput = z.object({
  token: inviteTokenSchema,
  /** Only when the invitee has no account yet: the account is created with the invite's email. */
  account: z.object({ name: personNameSchema, password: passwordSchema }).optional(),
});

/** null: no limit. */
const limitValue = (max: number) =>
  z
    .number({ message: "Enter a whole number." })
    .int({ message: "Enter a whole number." })
    .min(0, { message: "Must be 0 or more." })
    .max(max, { message: `Must be at most ${max.toLocaleString("en")}.` })
    .nullable();

/** A cost limit in cents; the console shows it in dollars, so the ceiling's message does too. */
const costLimitValue = (maxCents: number) =>
  z
    .number({ message: "Enter a whole number of cents." })
    .int({ message: "Enter a whole number of cents." })
    .min(0, { message: "Must be 0 or more." })
    .max(maxCents, { message: `Must be at most ${formatCents(maxCents)}.` })
    .nullable();

export const tenantLimitsSchema = z.object({
  runsPerMonth: limitValue(10_000_000),
  costPerMonthCents: costLimitValue(1_000_000_000),
  concurrentRuns: limitValue(10_000),
  turnsPerMinutePerMember: limitValue(10_000),
});
export type TenantLimitsInput = z.infer<typeof tenantLimitsSchema>;

export const memberCapSchema = z.object({
  runsPerMonth: limitValue(10_000_000),
  costPerMonthCents: costLimitValue(1_000_000_000),
});
export type MemberCapInput = z.infer<typeof memberCapSchema>;

/** limits.setScheduleCap: schedules enabled at once across the tenant; null: no limit. */
export const scheduleCapSchema = z.object({ maxActiveSchedules: limitValue(10_000) });
export type ScheduleCapInput = z.infer<typeof scheduleCapSchema>;

export const createTenantInput = z.object({
  name: tenantNameSchema,
  /** Invited as the tenant's first admin. */
  adminEmail: emailSchema.optional(),
});

export const idInput = z.object({ id: z.uuid() });

// --- Answers of the tenancy procedures (their tRPC .output): what the console pages read ----------------

/** Whole-id answers of deletes and revokes. */
export const IdOutput = z.object({ id: z.string() });

export const TenantRef = z.object({ id: z.string(), slug: z.string(), name: z.string() });
export const MembershipRef = z.object({ role: tenantRoleSchema, tenant: TenantRef });

export const MeOutput = z.object({
  user: z.object({ id: z.string(), name: z.string().nullable(), email: z.string(), isOwner: z.boolean() }),
  memberships: z.array(MembershipRef),
  activeTenant: TenantRef.nullable(),
  role: tenantRoleSchema.nullable(),
});

export const SignUpResult = z.discriminatedUnion("status", [
  z.object({ status: z.literal("pending") }),
  z.object({
    status: z.literal("created"),
    user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    tenant: TenantRef,
  }),
]);

export const TenantMemberships = z.object({ memberships: z.array(MembershipRef), activeTenant: TenantRef.nullable() });

/** The limits as stored (no form bounds: an answer is not refused for a value the form would not take). */
export const TenantLimitsView = z.object({
  runsPerMonth: z.number().int().nullable(),
  costPerMonthCents: z.number().int().nullable(),
  concurrentRuns: z.number().int().nullable(),
  turnsPerMinutePerMember: z.number().int().nullable(),
});
export const MemberCapView = z.object({ runsPerMonth: z.number().int().nullable(), costPerMonthCents: z.number().int().nullable() });

export const OwnerTenantRow = TenantRef.extend({
  limits: TenantLimitsView,
  createdAt: z.date(),
  usage: z.object({ costMicros: z.number().int(), runs: z.number().int() }),
  memberCount: z.number().int(),
});
export const TenantCreated = z.object({ tenant: TenantRef, inviteLink: z.string().nullable() });
export const TenantLimitsSet = z.object({ tenantId: z.string(), limits: TenantLimitsView });

export const SignUpModeOutput = z.object({ mode: signUpModeSchema });
export const SignUpRequestRow = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string(),
  tenantName: z.string(),
  createdAt: z.string(),
});
export const SignUpApproved = z.object({ email: z.string(), tenant: TenantRef });

export const MemberRow = z.object({
  id: z.string(),
  userId: z.string(),
  role: tenantRoleSchema,
  name: z.string().nullable(),
  email: z.string(),
  joinedAt: z.date(),
  embedUserId: z.string().nullable(),
});

export const InviteStatus = z.enum(["open", "accepted", "revoked", "expired"]);
export const InviteView = z.object({
  id: z.string(),
  role: tenantRoleSchema,
  email: z.string(),
  status: InviteStatus,
  createdAt: z.date(),
  expiresAt: z.date(),
  invitedBy: z.string().nullable(),
});
export const InviteCreated = z.object({ link: z.string(), invite: InviteView });
export const InviteDescription = z.object({
  role: tenantRoleSchema,
  email: z.string(),
  tenant: TenantRef.pick({ name: true, slug: true }),
  status: InviteStatus,
  /** Whether the invited email already has an account (then the invitee signs in to accept). */
  accountExists: z.boolean(),
});
export const InviteAccepted = z.object({ role: tenantRoleSchema, email: z.string(), tenant: TenantRef, createdAccount: z.boolean() });

/** null max: no limit. Cost meters are micro-USD. */
const Meter = z.object({ used: z.number(), max: z.number().nullable() });
export const MyUsage = z.object({
  period: z.string(),
  resetsAt: z.string(),
  member: z.object({ runs: Meter, costMicros: Meter, turnsThisMinute: Meter }),
  tenant: z.object({ runs: Meter, costMicros: Meter, concurrentRuns: Meter }),
});

export const TenantCaps = z.object({
  period: z.string(),
  limits: TenantLimitsView,
  defaultCap: MemberCapView,
  schedules: z.object({ maxActive: z.number().int().nullable(), active: z.number().int() }),
  members: z.array(
    z.object({
      membershipId: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: tenantRoleSchema,
      override: MemberCapView.nullable(),
      effective: MemberCapView,
      usage: z.object({ runs: z.number().int(), costMicros: z.number().int() }),
    }),
  ),
});
export const ScheduleCapView = z.object({ maxActiveSchedules: z.number().int().nullable() });
export const MemberCapSet = z.object({ membershipId: z.string(), cap: MemberCapView.nullable() });

export type MyUsage = z.infer<typeof MyUsage>;
export type TenantLimitsView = z.infer<typeof TenantLimitsView>;
export type TenantCaps = z.infer<typeof TenantCaps>;
export type InviteView = z.infer<typeof InviteView>;
export type InviteDescription = z.infer<typeof InviteDescription>;
