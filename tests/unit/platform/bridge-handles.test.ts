// iMessage handles (packages/core/src/schemas/bridges.ts): one form for comparing phone numbers and email addresses,
// and what counts as a handle at all.
import { describe, expect, it } from "vitest";
import { Handle, isHandle, normalizeHandle } from "@inlay/core/schemas/bridges";

describe("normalizeHandle", () => {
  it("drops a phone number's spaces, dashes, dots and parentheses and lower-cases email addresses", () => {
    expect(normalizeHandle(" +1 (555) 000-0001 ")).toBe("+15550000001");
    expect(normalizeHandle("+44.20.7946.0958")).toBe("+442079460958");
    expect(normalizeHandle(" Ada@Example.COM ")).toBe("ada@example.com");
  });
});

describe("isHandle and the Handle schema", () => {
  it("accepts E.164 numbers and email addresses, nothing else", () => {
    for (const good of ["+15550000001", "+1 555 000 0001", "ada@example.com"]) expect(isHandle(good), good).toBe(true);
    for (const bad of ["15550000001", "+0123456789", "+12", "+1234567890123456", "ada@", "ada example.com", "hello"]) {
      expect(isHandle(bad), bad).toBe(false);
    }
  });

  it("parses to the normal form and names the problem otherwise", () => {
    expect(Handle.parse("+1 (555) 000-0001")).toBe("+15550000001");
    const refused = Handle.safeParse("not a handle");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toContain("E.164");
  });
});
