// Which IP addresses the platform may connect to for a user-supplied URL: public unicast only, so a
// URL cannot reach the cloud metadata service, our database or anything else on the private network.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type AddressVerdict = { allowed: true; address: string } | { allowed: false; address: string; why: string };

// ipaddr.js range names, worded for the messages users see ("… is 10.0.0.1, a private address").
const rangeWords: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
  uniqueLocal: "a private address",
  reserved: "a reserved address",
  benchmarking: "a reserved address",
  rfc6052: "a NAT64 address",
  rfc6145: "an IPv4-translated address",
  "6to4": "a 6to4 relay address",
  teredo: "a Teredo relay address",
};

// ipaddr.js calls everything it has no name for "unicast", including ::/96 (IPv4-compatible, so
// ::7f00:1 would pass). Only 2000::/3 is assigned as global unicast, so anything outside it is refused.
const ipv6GlobalUnicast = ipaddr.parseCIDR("2000::/3") as [ipaddr.IPv6, number];

/** Strips the brackets a URL puts around an IPv6 host. */
export function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/** True when the host (as a URL gives it, brackets allowed) is an IP literal rather than a DNS name. */
export function isIpLiteral(hostname: string): boolean {
  return isIP(bareHost(hostname)) !== 0;
}

/**
 * Judges one IP address. `allowLoopback` (development and tests) admits 127.0.0.0/8 and ::1 and
 * nothing else that is not public.
 */
export function classifyAddress(address: string, options: { allowLoopback?: boolean } = {}): AddressVerdict {
  const bare = bareHost(address);
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(bare);
  } catch {
    return { allowed: false, address: bare, why: "not an IP address" };
  }
  // ::ffff:a.b.c.d is delivered to the IPv4 host a.b.c.d, so that is the address to judge.
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();

  const range = ip.range();
  if (range === "unicast") {
    if (ip.kind() === "ipv6" && !(ip as ipaddr.IPv6).match(ipv6GlobalUnicast)) {
      return { allowed: false, address: bare, why: "not a global unicast IPv6 address" };
    }
    return { allowed: true, address: bare };
  }
  if (range === "loopback" && options.allowLoopback) return { allowed: true, address: bare };
  return { allowed: false, address: bare, why: rangeWords[range] ?? `a special-purpose address (${range})` };
}
