// Addresses of agent inboxes and email triggers, and who may write to them. An address is
// <slug>.<10 random characters>@<domain>: the slug (from the agent's name, or "task-<id>") helps people
// tell inboxes apart, the random part keeps addresses from being guessed. Addresses are stored in lower
// case on their agent or trigger row, unique in both tables. No HTTP here.
import { randomInt } from "node:crypto";
import type { EmailSettings, PlatformConfig } from "../../platform-config";

export const DEFAULT_EMAIL_DOMAIN = "agents.localhost";

export function emailSettings(config: PlatformConfig): EmailSettings {
  return { domain: config.email?.domain ?? DEFAULT_EMAIL_DOMAIN, smtp: config.email?.smtp };
}

// Letters and digits that are not easily confused (no 0/o, 1/l).
const ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
const RANDOM_CHARS = 10;
const SLUG_CHARS = 24;

export function slugForAddress(label: string): string {
  const slug = label
    .normalize("NFKD")
    // Accents come apart from their letters under NFKD: drop them, so "Élan" is "elan".
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_CHARS)
    .replace(/-+$/, "");
  return slug || "agent";
}

/** A new address for `label` on `domain`; the caller stores it (unique) and retries on the rare clash. */
export function newInboxAddress(domain: string, label: string): string {
  let random = "";
  for (let i = 0; i < RANDOM_CHARS; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  return `${slugForAddress(label)}.${random}@${domain}`.toLowerCase();
}

/** The bare address of `value` ("Name <a@b>" or "a@b"), lower-cased; "" when there is none. */
export function bareAddress(value: string | undefined | null): string {
  if (!value) return "";
  const angle = /<([^<>]*)>/.exec(value);
  return (angle ? angle[1]! : value).trim().toLowerCase();
}

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1);

/**
 * Whether `sender` may write: an entry is an address (equal, case aside) or `@domain` (that exact
 * domain; subdomains need their own entry). An empty list admits only `fallback` (the account owner's
 * address, and the end-user's own for an end-user's inbox): an inbox is never open to anyone by default.
 */
export function senderAllowed(sender: string, allowed: readonly string[], fallback: readonly string[]): boolean {
  const address = bareAddress(sender);
  if (!address.includes("@")) return false;
  const entries = (allowed.length > 0 ? allowed : fallback).map((entry) => entry.trim().toLowerCase());
  return entries.some((entry) => (entry.startsWith("@") ? domainOf(address) === entry.slice(1) : entry === address));
}
