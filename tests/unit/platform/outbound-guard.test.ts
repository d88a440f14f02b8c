// The outbound address guard (server/platform/outbound): which hosts a user-supplied URL may name.
// Classification only: nothing here opens a connection.
import { describe, expect, it } from "vitest";
import { classifyAddress } from "@/server/platform/outbound/address-guard";
import { checkOutboundUrl, OutboundError } from "@/server/platform/outbound/guarded-fetch";

// Hosts as a user might write them; the URL parser normalizes the numeric IPv4 forms to 127.0.0.1.
const refused = [
  "127.0.0.1",
  "127.1.2.3",
  "[::1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "2130706433",
  "0x7f000001",
  "0177.0.0.1",
  "0.0.0.0",
  "[::]",
  "169.254.169.254",
  "10.1.2.3",
  "172.16.0.1",
  "192.168.1.1",
  "100.64.0.1",
  "[fd00::1]",
  "[fe80::1]",
  "224.0.0.1",
  "255.255.255.255",
  // IPv4-compatible, NAT64, 6to4: IPv6 forms that carry an IPv4 address.
  "[::7f00:1]",
  "[64:ff9b::a00:1]",
  "[2002:7f00:1::]",
];
const allowed = ["93.184.216.34", "[2606:4700::1111]"];

const hostOf = (host: string) => new URL(`http://${host}/`).hostname;

function refusal(run: () => unknown): OutboundError {
  try {
    run();
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw err;
  }
  throw new Error("expected an OutboundError");
}

describe("classifyAddress", () => {
  it.each(refused)("refuses %s", (host) => {
    expect(classifyAddress(hostOf(host))).toMatchObject({ allowed: false });
  });

  it.each(allowed)("allows %s", (host) => {
    expect(classifyAddress(hostOf(host))).toMatchObject({ allowed: true });
  });

  it("judges the numeric IPv4 forms the same before URL normalization", () => {
    for (const form of ["2130706433", "0x7f000001", "0177.0.0.1"]) expect(classifyAddress(form).allowed).toBe(false);
  });

  it("says why in words", () => {
    expect(classifyAddress("10.0.0.1")).toEqual({ allowed: false, address: "10.0.0.1", why: "a private address" });
    expect(classifyAddress("169.254.169.254")).toMatchObject({ why: "a link-local address" });
    expect(classifyAddress("::ffff:127.0.0.1")).toMatchObject({ why: "a loopback address" });
    expect(classifyAddress("not-an-ip")).toMatchObject({ allowed: false, why: "not an IP address" });
  });

  it("with allowLoopback admits 127.0.0.0/8 and ::1, and nothing else private", () => {
    const dev = { allowLoopback: true };
    expect(classifyAddress("127.0.0.1", dev).allowed).toBe(true);
    expect(classifyAddress("127.1.2.3", dev).allowed).toBe(true);
    expect(classifyAddress("[::1]", dev).allowed).toBe(true);
    for (const host of ["10.1.2.3", "169.254.169.254", "0.0.0.0", "[::]", "192.168.1.1", "[fd00::1]"]) {
      expect(classifyAddress(host, dev).allowed, host).toBe(false);
    }
  });
});

describe("checkOutboundUrl", () => {
  it.each(refused)("refuses a literal %s with blocked_address", (host) => {
    expect(refusal(() => checkOutboundUrl(`https://${host}/hook`)).reason).toBe("blocked_address");
  });

  it("names the address and the reason", () => {
    expect(refusal(() => checkOutboundUrl("https://2130706433/")).message).toBe("127.0.0.1 is a loopback address");
  });

  it("accepts https with a public literal or a DNS name (names are judged at connect time)", () => {
    expect(checkOutboundUrl("https://93.184.216.34/hook").hostname).toBe("93.184.216.34");
    expect(checkOutboundUrl("https://hooks.example.com/x").hostname).toBe("hooks.example.com");
  });

  it("refuses http:// unless allowHttp", () => {
    expect(refusal(() => checkOutboundUrl("http://hooks.example.com/")).reason).toBe("scheme_not_allowed");
    expect(checkOutboundUrl("http://hooks.example.com/", { allowHttp: true }).protocol).toBe("http:");
  });

  it("refuses other schemes even with allowHttp", () => {
    for (const url of ["ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)"]) {
      expect(refusal(() => checkOutboundUrl(url, { allowHttp: true })).reason, url).toBe("scheme_not_allowed");
    }
  });

  it("refuses garbage with invalid_url", () => {
    for (const url of ["", "not a url", "https://", "http://[::1/"]) {
      expect(refusal(() => checkOutboundUrl(url)).reason, url).toBe("invalid_url");
    }
  });

  it("with allowLoopback admits a loopback literal but not a private one", () => {
    const dev = { allowLoopback: true, allowHttp: true };
    expect(checkOutboundUrl("http://127.0.0.1:3000/", dev).port).toBe("3000");
    expect(checkOutboundUrl("http://[::1]:3000/", dev).hostname).toBe("[::1]");
    expect(refusal(() => checkOutboundUrl("http://10.1.2.3/", dev)).reason).toBe("blocked_address");
    expect(refusal(() => checkOutboundUrl("http://169.254.169.254/", dev)).reason).toBe("blocked_address");
  });
});
