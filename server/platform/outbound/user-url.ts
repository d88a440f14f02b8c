// The one rule for every URL a user gives the platform to call (webhooks, tool and MCP servers, their
// OAuth endpoints and script allow-lists, bridges, model connections' base_url), checked when it is
// written; outbound/guarded-fetch.ts judges the addresses again when it connects. docs/platform-api.md
// "URLs users supply" states the policy:
//
// - https only; plain http only to a loopback host, and loopback only where OUTBOUND_ALLOW_LOOPBACK is on;
// - no user or password in the URL (each kind of server has its own field for credentials);
// - the host as it will be dialled: lower case, a trailing dot removed (LOCALHOST. is localhost), and an
//   IP literal must be a public address (loopback only where allowed);
// - the port: 443, or 1024-65535 outside the well-known ports of databases and infrastructure, so a URL
//   cannot make the platform knock on a host's SSH, mail or database port (nor report which are open);
//   a loopback host in development and tests may use any port.
import { OutboundError } from "./guarded-fetch";
import { bareHost, classifyAddress, isIpLiteral } from "./address-guard";

export interface UserUrlOptions {
  /** OUTBOUND_ALLOW_LOOPBACK: development and tests reach servers on 127.0.0.1 over plain http. */
  allowLoopback: boolean;
}

/** Ports above 1024 of services no user URL has a reason to name. */
const INFRASTRUCTURE_PORTS = new Set([
  1433, 1521, 2049, 2375, 2376, 2379, 3306, 3389, 4369, 5432, 5672, 5984, 6379, 6443, 7000, 7001, 8086, 8500, 9042, 9092, 9200, 9300,
  10250, 11211, 15672, 25565, 27017, 28017,
]);

export const USER_URL_MAX_LENGTH = 2_048;

const isLoopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** A loopback host refused: the message names the setting that allows it, and where it may be set. */
const loopbackRefused = (host: string) =>
  new OutboundError(
    "blocked_address",
    `${host} is a loopback address; set OUTBOUND_ALLOW_LOOPBACK=true to allow loopback URLs (development and tests only: production refuses the setting)`,
  );

/** The URL, normalised (host lower case, no trailing dot), or an OutboundError saying what is wrong. */
export function checkUserUrl(url: string, options: UserUrlOptions): URL {
  if (url.length > USER_URL_MAX_LENGTH) throw new OutboundError("invalid_url", `The URL is over ${USER_URL_MAX_LENGTH} characters.`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundError("invalid_url", "The URL is not valid.");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new OutboundError("scheme_not_allowed", `${parsed.protocol.replace(/:$/, "")} URLs are not allowed; use https.`);
  }
  if (parsed.username || parsed.password) {
    throw new OutboundError("invalid_url", "The URL must not carry a user or password; give credentials in their own field.");
  }
  // The URL parser lower-cases the host; a trailing dot names the same host and must not slip past the checks.
  if (parsed.hostname.endsWith(".") && !isIpLiteral(parsed.hostname)) parsed.hostname = parsed.hostname.replace(/\.+$/, "");
  const host = bareHost(parsed.hostname);
  let loopback = isLoopbackName(host);
  if (isIpLiteral(parsed.hostname)) {
    const verdict = classifyAddress(host, { allowLoopback: options.allowLoopback });
    loopback = !classifyAddress(host).allowed;
    // Refused only for being loopback: allowing loopback would let it through.
    if (!verdict.allowed && !options.allowLoopback && classifyAddress(host, { allowLoopback: true }).allowed) throw loopbackRefused(verdict.address);
    if (!verdict.allowed) throw new OutboundError("blocked_address", `${verdict.address} is ${verdict.why}`);
  }
  if (loopback && !options.allowLoopback) throw loopbackRefused(host);
  if (parsed.protocol === "http:" && !loopback) throw new OutboundError("scheme_not_allowed", "http URLs are not allowed; use https.");
  if (!loopback && parsed.port !== "") {
    const port = Number(parsed.port);
    if (port < 1024 || INFRASTRUCTURE_PORTS.has(port)) {
      throw new OutboundError("port_not_allowed", `Port ${port} is not allowed; use 443 or a port from 1024 that no database or infrastructure service uses.`);
    }
  }
  return parsed;
}
