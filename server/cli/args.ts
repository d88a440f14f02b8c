// Reading the operator's arguments: exact money, durations, counts and ids. Every mistake is a
// UsageError, one line naming the option, before anything touches the database.

/** Bad input: the command is not run, and it exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

const MICROS_PER_USD = 1_000_000n;
const MICROS_PER_CENT = 10_000n;

/** "10.50" → 10_500_000n, by digits (never through a float), at most 6 decimals. */
export function microsFromUsd(flag: string, text: string): bigint {
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) throw new UsageError(`--${flag} must be an amount in dollars such as 10 or 10.50, got "${text}"`);
  return BigInt(match[1]!) * MICROS_PER_USD + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** "10500000" → 10_500_000n. */
export function microsFromInteger(flag: string, text: string): bigint {
  if (!/^\d{1,18}$/.test(text.trim())) throw new UsageError(`--${flag} must be a whole number of micro-dollars such as 10500000, got "${text}"`);
  return BigInt(text.trim());
}

/** Payments and receipts are in cents: an amount between two cents is refused rather than rounded. */
export function centsOf(flag: string, micros: bigint): number {
  if (micros % MICROS_PER_CENT !== 0n) throw new UsageError(`--${flag}: credits are whole cents (a multiple of 10000 micro-dollars)`);
  const cents = micros / MICROS_PER_CENT;
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError(`--${flag}: the amount is too large`);
  return Number(cents);
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "2h", "1d" → milliseconds. */
export function durationMs(flag: string, text: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (!match) throw new UsageError(`--${flag} must be a duration such as 90s, 15m, 2h or 1d, got "${text}"`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** A whole number from `min` to `max`. */
export function count(flag: string, text: string, min: number, max: number): number {
  const parsed = /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  return parsed;
}

/** A row id (a positive int4). */
export const id = (what: string, text: string) => count(what, text, 1, 2_147_483_647);

/** An account named by id or email. */
export function accountRef(text: string | undefined): string {
  const ref = text?.trim() ?? "";
  if (ref === "") throw new UsageError("name the account by its email or id");
  if (!/^\d{1,10}$/.test(ref) && !/^[^\s@]+@[^\s@]+$/.test(ref)) throw new UsageError(`name the account by its email or id, got "${text}"`);
  return ref;
}
