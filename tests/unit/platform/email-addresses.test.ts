import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { platformConfigFromEnv } from "@/server/platform/config";
import { bareAddress, newInboxAddress, senderAllowed, slugForAddress } from "@/server/platform/services/messaging/email-addresses";

describe("inbox addresses", () => {
  it("are <slug>.<10 random characters>@<domain>, in lower case", () => {
    const address = newInboxAddress("Agents.Example.com", "Mail Desk (EU) — Tier 2");
    expect(address).toMatch(/^mail-desk-eu-tier-2\.[a-z2-9]{10}@agents\.example\.com$/);
    expect(newInboxAddress("agents.localhost", "Mail Desk")).not.toBe(newInboxAddress("agents.localhost", "Mail Desk"));
  });

  it("slug names without letters or digits as agent, drop accents and cut at 24 characters", () => {
    expect(slugForAddress("!!!")).toBe("agent");
    expect(slugForAddress("Élan Vital")).toBe("elan-vital");
    expect(slugForAddress("a very long agent name that goes on and on")).toBe("a-very-long-agent-name-t");
  });
});

describe("senderAllowed", () => {
  it("matches addresses without case and @domain exactly (no subdomains)", () => {
    const allowed = ["Alice@Example.org", "@trusted.example"];
    expect(senderAllowed("alice@example.org", allowed, [])).toBe(true);
    expect(senderAllowed("Alice <ALICE@example.org>", allowed, [])).toBe(true);
    expect(senderAllowed("bob@trusted.example", allowed, [])).toBe(true);
    expect(senderAllowed("bob@sub.trusted.example", allowed, [])).toBe(false);
    expect(senderAllowed("bob@example.org", allowed, [])).toBe(false);
    expect(senderAllowed("", allowed, [])).toBe(false);
  });

  it("admits only the fallback (the owner) when the list is empty", () => {
    expect(senderAllowed("owner@example.com", [], ["owner@example.com"])).toBe(true);
    expect(senderAllowed("someone@example.com", [], ["owner@example.com"])).toBe(false);
    expect(senderAllowed("someone@example.com", [], [])).toBe(false);
  });

  it("reads the bare address of a header value", () => {
    expect(bareAddress('"Doe, Jane" <Jane@Example.org>')).toBe("jane@example.org");
    expect(bareAddress(" x@y.z ")).toBe("x@y.z");
    expect(bareAddress(undefined)).toBe("");
  });
});

describe("email settings", () => {
  it("default to agents.localhost with no SMTP server", () => {
    const config = platformConfigFromEnv(parseEnv({}));
    expect(config.email).toEqual({ domain: "agents.localhost", smtp: undefined, fetchmailPollSeconds: 60 });
  });

  it("turn the SMTP server on with a port (0 = any free one) and check the domain", () => {
    const config = platformConfigFromEnv(parseEnv({ INLAY_SMTP_PORT: "0", INLAY_EMAIL_DOMAIN: "Mail.Example.com" }));
    expect(config.email).toEqual({ domain: "mail.example.com", smtp: { port: 0, host: "127.0.0.1", maxBytes: 10 * 1024 * 1024 }, fetchmailPollSeconds: 60 });
    expect(() => parseEnv({ INLAY_EMAIL_DOMAIN: "not a domain" })).toThrow(/INLAY_EMAIL_DOMAIN/);
    expect(() => parseEnv({ INLAY_SMTP_PORT: "70000" })).toThrow(/INLAY_SMTP_PORT/);
    expect(() => parseEnv({ INLAY_MAIL_SMTP_URL: "http://relay" })).toThrow(/INLAY_MAIL_SMTP_URL/);
  });
});
