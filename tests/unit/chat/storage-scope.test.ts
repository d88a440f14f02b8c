import { describe, expect, it } from "vitest";
import { chatStorageScope } from "@/server/framework/chat/storage-scope";

describe("the chat's storage scope", () => {
  it("is stable for one person in one workspace, different across people and workspaces, and opaque", () => {
    const scope = chatStorageScope("tenant-a", "user-1");
    expect(scope).toBe(chatStorageScope("tenant-a", "user-1"));
    expect(scope).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(chatStorageScope("tenant-b", "user-1")).not.toBe(scope);
    expect(chatStorageScope("tenant-a", "user-2")).not.toBe(scope);
    expect(scope).not.toContain("tenant");
  });
});
