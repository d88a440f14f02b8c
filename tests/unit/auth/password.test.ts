import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "@/server/shared/passwords";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain("correct horse");
    await expect(verifyPassword("correct horse", hash)).resolves.toBe(true);
    await expect(verifyPassword("correct horsf", hash)).resolves.toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("refuses malformed stored values", async () => {
    await expect(verifyPassword("x", "plain-text")).resolves.toBe(false);
    await expect(verifyPassword("x", "bcrypt$1$2$3$a$b")).resolves.toBe(false);
  });
});
