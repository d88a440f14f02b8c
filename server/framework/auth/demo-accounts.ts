// The demo accounts the sign-in page names, so a newcomer who just ran `npm run dev` can sign in
// without the README. Development only, and only where the demo data is seeded: in production the
// page never hints at accounts or passwords.
import { env, type Env } from "@/lib/env";
import { DEMO_PASSWORD, demoOwner, demoTenants } from "@/prisma/seed";

export interface DemoAccount {
  email: string;
  /** Who they are: "installation owner", "Acme admin", … */
  role: string;
}

export function demoAccountsToShow(source: Pick<Env, "NODE_ENV" | "SEED_DEMO_DATA"> = env): { accounts: DemoAccount[]; password: string } | undefined {
  if (source.NODE_ENV !== "development" || !source.SEED_DEMO_DATA) return undefined;
  const accounts = [
    { email: demoOwner.email, role: "installation owner" },
    ...demoTenants.flatMap((tenant) => tenant.members.map((member) => ({ email: member.email, role: `${tenant.name} ${member.role}` }))),
  ];
  return { accounts, password: DEMO_PASSWORD };
}
