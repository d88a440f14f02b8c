// The one rule for URLs users supply (server/platform/outbound/user-url.ts).
import { describe, expect, it } from "vitest";
import { OutboundError } from "@/server/platform/outbound/guarded-fetch";
import { checkUserUrl } from "@/server/platform/outbound/user-url";

const refusal = (url: string, allowLoopback = false) => {
  try {
    checkUserUrl(url, { allowLoopback });
  } catch (error) {
    if (error instanceof OutboundError) return `${error.reason}: ${error.message}`;
    throw error;
  }
  return null;
};

const LOOPBACK_HINT = "; set OUTBOUND_ALLOW_LOOPBACK=true to allow loopback URLs (development and tests only: production refuses the setting)";

describe("checkUserUrl", () => {
  it("accepts https on 443 or an ordinary high port, normalising the host", () => {
    expect(checkUserUrl("https://Hooks.Example.com/in?x=1", { allowLoopback: false }).href).toBe("https://hooks.example.com/in?x=1");
    expect(checkUserUrl("https://example.com.:8443/mcp", { allowLoopback: false }).href).toBe("https://example.com:8443/mcp");
    expect(refusal("https://example.com:443/x")).toBeNull();
  });

  it("refuses credentials in the URL, whatever the field", () => {
    expect(refusal("https://user:pass@example.com/hook")).toBe("invalid_url: The URL must not carry a user or password; give credentials in their own field.");
    expect(refusal("https://token@example.com/hook")).toMatch(/^invalid_url: The URL must not carry a user or password/);
  });

  it("treats a trailing dot and any case as the host they name", () => {
    expect(refusal("http://LOCALHOST.:4010/x")).toBe(`blocked_address: localhost is a loopback address${LOOPBACK_HINT}`);
    expect(refusal("https://sub.localhost./x")).toBe(`blocked_address: sub.localhost is a loopback address${LOOPBACK_HINT}`);
  });

  it("names the setting that allows a loopback URL (an address or a name), and only for loopback", () => {
    expect(refusal("http://127.0.0.1:4010/hook")).toBe(`blocked_address: 127.0.0.1 is a loopback address${LOOPBACK_HINT}`);
    expect(refusal("http://[::1]:4010/hook")).toBe(`blocked_address: ::1 is a loopback address${LOOPBACK_HINT}`);
    expect(refusal("https://10.0.0.5/hook")).toBe("blocked_address: 10.0.0.5 is a private address");
    expect(refusal("https://10.0.0.5/hook", true)).toBe("blocked_address: 10.0.0.5 is a private address");
    expect(checkUserUrl("http://LOCALHOST.:4010/x", { allowLoopback: true }).href).toBe("http://localhost:4010/x");
  });

  it("refuses ports of other services, and below 1024 but 443, on public hosts", () => {
    for (const port of [22, 25, 80, 3306, 5432, 6379, 9200, 27017]) {
      expect(refusal(`https://example.com:${port}/x`)).toMatch(new RegExp(`^port_not_allowed: Port ${port} is not allowed`));
    }
    // A loopback server in development and tests may listen anywhere.
    expect(refusal("http://127.0.0.1:5432/x", true)).toBeNull();
  });

  it("keeps plain http and loopback to where loopback is allowed, and private addresses out", () => {
    expect(refusal("http://example.com/x")).toBe("scheme_not_allowed: http URLs are not allowed; use https.");
    expect(refusal("http://example.com/x", true)).toBe("scheme_not_allowed: http URLs are not allowed; use https.");
    expect(refusal("http://127.0.0.1:3000/x")).toMatch(/^blocked_address: 127\.0\.0\.1 is a loopback address/);
    expect(refusal("http://127.0.0.1:3000/x", true)).toBeNull();
    expect(refusal("https://10.0.0.1/x", true)).toMatch(/^blocked_address: 10\.0\.0\.1 is a private address/);
    expect(refusal("https://169.254.169.254/latest")).toMatch(/^blocked_address: 169\.254\.169\.254 is a link-local address/);
    expect(refusal("ftp://example.com/x")).toBe("scheme_not_allowed: ftp URLs are not allowed; use https.");
    expect(refusal("not a url")).toBe("invalid_url: The URL is not valid.");
    expect(refusal(`https://example.com/${"a".repeat(2_100)}`)).toBe("invalid_url: The URL is over 2048 characters.");
  });
});
