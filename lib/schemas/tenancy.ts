// Contracts of the framework's tenancy procedures (sign-up, tenants, members, invites, limits), shared
// by the tRPC routers and the console forms, so both validate the same way.
import { z } from "zod";
import { formatCents } from "@/lib/money";

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
