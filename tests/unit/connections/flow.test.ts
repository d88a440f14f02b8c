// The connect flow's pure parts: the return path (never an open redirect), the outcome message, and
// a member's status from their connections.
import { describe, expect, it } from "vitest";
import { connectionMessageFrom, returnUrlWithOutcome, safeReturnTo } from "@inlay/core/connections/flow";
import { statusOf } from "@/server/framework/tenancy/connections";

describe("safeReturnTo", () => {
  it("keeps same-origin paths with their query and hash", () => {
    expect(safeReturnTo("/connections")).toBe("/connections");
    expect(safeReturnTo("/agents/3/chat?x=1#end")).toBe("/agents/3/chat?x=1#end");
    expect(safeReturnTo("/a/../b")).toBe("/b");
  });

  it.each([
    ["https://evil.test/"],
    ["//evil.test"],
    ["///evil.test"],
    ["/\\evil.test"],
    ["/\t/evil.test"],
    ["/\n/evil.test"],
    ["javascript:alert(1)"],
    ["evil.test"],
    [""],
    [undefined],
    [42],
    ["/" + "a".repeat(2_001)],
  ])("refuses %j", (value) => {
    expect(safeReturnTo(value)).toBe("/connections");
    expect(safeReturnTo(value, "/chat")).toBe("/chat");
  });

  it("puts the outcome on the return path", () => {
    expect(returnUrlWithOutcome("/chat?agent=Support", { app: "codehost", status: "connected" })).toBe(
      "/chat?agent=Support&connected=codehost&connection_status=connected",
    );
    expect(returnUrlWithOutcome("//evil.test", { app: "mail", status: "error" })).toBe("/connections?connected=mail&connection_status=error");
  });
});

describe("connectionMessageFrom", () => {
  const data = { type: "inlay:connection", app: "codehost", status: "connected" };
  it("takes our own origin's well-formed messages only", () => {
    expect(connectionMessageFrom({ origin: "https://app.test", data }, "https://app.test")).toEqual(data);
    expect(connectionMessageFrom({ origin: "https://evil.test", data }, "https://app.test")).toBeUndefined();
    expect(connectionMessageFrom({ origin: "https://app.test", data: { ...data, type: "other" } }, "https://app.test")).toBeUndefined();
    expect(connectionMessageFrom({ origin: "https://app.test", data: "inlay:connection" }, "https://app.test")).toBeUndefined();
    const granted = { type: "inlay:connection", app: "codehost", status: "authorized", connectionId: "c1" };
    expect(connectionMessageFrom({ origin: "https://app.test", data: granted }, "https://app.test")).toEqual(granted);
    expect(connectionMessageFrom({ origin: "https://app.test", data: { ...granted, connectionId: undefined } }, "https://app.test")).toBeUndefined();
  });
});

describe("statusOf", () => {
  const c = (status: "pending" | "active" | "expired" | "revoked" | "error", accountLabel: string | null = null) => ({ status, accountLabel });
  it("any active connection connects; else expired, error, pending; revoked counts as none", () => {
    expect(statusOf([])).toEqual({ status: "not_connected", accountLabel: null });
    expect(statusOf([c("expired", "old"), c("active", "new")])).toEqual({ status: "connected", accountLabel: "new" });
    expect(statusOf([c("error"), c("expired", "old")])).toEqual({ status: "expired", accountLabel: "old" });
    expect(statusOf([c("pending"), c("error")])).toEqual({ status: "error", accountLabel: null });
    expect(statusOf([c("pending")])).toEqual({ status: "pending", accountLabel: null });
    expect(statusOf([c("revoked", "gone")])).toEqual({ status: "not_connected", accountLabel: null });
  });
});
