import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD, demoOwner, demoTenants } from "@/prisma/seed";
import { demoAccountsToShow } from "@/server/framework/auth/demo-accounts";

describe("demoAccountsToShow", () => {
  it("names every seeded account and the password in development with the demo data on", () => {
    const shown = demoAccountsToShow({ NODE_ENV: "development", SEED_DEMO_DATA: true });
    const seeded = [demoOwner.email, ...demoTenants.flatMap((tenant) => tenant.members.map((member) => member.email))];
    expect(shown?.accounts.map((account) => account.email)).toEqual(seeded);
    expect(shown?.accounts.find((account) => account.email === "member@acme.test")?.role).toBe("Acme member");
    expect(shown?.password).toBe(DEMO_PASSWORD);
  });

  it("names none in production or test, nor without the demo data", () => {
    expect(demoAccountsToShow({ NODE_ENV: "production", SEED_DEMO_DATA: true })).toBeUndefined();
    expect(demoAccountsToShow({ NODE_ENV: "test", SEED_DEMO_DATA: true })).toBeUndefined();
    expect(demoAccountsToShow({ NODE_ENV: "development", SEED_DEMO_DATA: false })).toBeUndefined();
  });
});
