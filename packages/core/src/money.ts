// Money for people: every amount the console shows goes through here, so the balance and spend
// (micro-USD), caps and limits (cents) and the platform's decimal strings all read the same way. Isomorphic
// (no Node APIs): client components use it. Whole-number math on bigint, so no float rounding creeps in.
// Amounts are stored and compared exactly (micro-USD); rounding happens here only.

const MICROS_PER_CENT = 10_000n;
const MICROS_PER_DOLLAR = 1_000_000n;
const MICROS_PER_TEN_THOUSANDTH = 100n;

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function toMicros(value: number | bigint): bigint {
  return typeof value === "bigint" ? value : BigInt(Math.round(value));
}

/**
 * Micro-USD for people. A whole number of cents reads `$1,234.56` (and zero, only zero, `$0.00`); any
 * other amount keeps four decimals, rounded half up (`$0.0004`, `$1,004.9996`), so spend under a cent
 * does not read as free and a balance a few runs lower does not read as unchanged; a non-zero amount
 * under $0.00005 is `<$0.0001`.
 */
export function formatMicros(value: number | bigint): string {
  const micros = toMicros(value);
  const sign = micros < 0n ? "-" : "";
  const abs = micros < 0n ? -micros : micros;
  if (abs % MICROS_PER_CENT === 0n) {
    const cents = abs / MICROS_PER_CENT;
    return `${sign}$${groupThousands(String(cents / 100n))}.${String(cents % 100n).padStart(2, "0")}`;
  }
  const tenThousandths = (abs + MICROS_PER_TEN_THOUSANDTH / 2n) / MICROS_PER_TEN_THOUSANDTH;
  if (tenThousandths === 0n) return `${sign}<$0.0001`;
  return `${sign}$${groupThousands(String(tenThousandths / 10_000n))}.${String(tenThousandths % 10_000n).padStart(4, "0")}`;
}

/**
 * Micro-USD to the micro-USD (`$0.000473`, `$1,019.829700`): the exact figure behind a formatMicros
 * one, for a title on hover or a detail, so a rounded amount never hides what was charged.
 */
export function formatMicrosExact(value: number | bigint): string {
  const micros = toMicros(value);
  const abs = micros < 0n ? -micros : micros;
  const fraction = String(abs % MICROS_PER_DOLLAR).padStart(6, "0");
  return `${micros < 0n ? "-" : ""}$${groupThousands(String(abs / MICROS_PER_DOLLAR))}.${fraction}`;
}

/** The title a rounded amount carries on screen (`Exactly $0.003710`): hover shows what was charged. */
export function exactTitle(value: number | bigint): string {
  return `Exactly ${formatMicrosExact(value)}`;
}

/** Micro-USD as the platform's decimal USD string (`473` -> `0.000473`), exactly. */
export function microsToUsd(value: number | bigint): string {
  return formatMicrosExact(value).replace("$", "").replaceAll(",", "");
}

/**
 * A decimal USD string (the platform's `cost_usd`, six decimals) as exact micro-USD; null when it is not
 * a non-negative decimal. Digits past the sixth round up, so a cost is never under-counted.
 */
export function usdToMicros(value: string): bigint | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) return null;
  const fraction = match[2] ?? "";
  const micros = BigInt(match[1]!) * MICROS_PER_DOLLAR + BigInt(fraction.slice(0, 6).padEnd(6, "0"));
  return /[1-9]/.test(fraction.slice(6)) ? micros + 1n : micros;
}

/** `$12.34` from whole cents (caps, limits, plan prices). */
export function formatCents(cents: number): string {
  return formatMicros(toMicros(cents) * MICROS_PER_CENT);
}

/** Whole cents (a cap, a limit) as micro-USD, to compare with spend exactly. */
export function centsToMicros(cents: number): number {
  return cents * Number(MICROS_PER_CENT);
}

/** The platform's decimal USD strings (`cost_usd`, `balance_usd`) as formatMicros does; undefined if not one. */
export function formatUsd(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const negative = value.trim().startsWith("-");
  const micros = usdToMicros(negative ? value.trim().slice(1) : value);
  return micros === null ? undefined : formatMicros(negative ? -micros : micros);
}

/**
 * A dollar amount typed into a form (`12`, `12.5`, `$1,234.50`) as whole cents; null when it is not one
 * (more than two decimals, a sign, letters), so the form can say so instead of rounding silently.
 */
export function parseDollars(text: string): number | null {
  const match = /^\$?((?:\d{1,3}(?:,\d{3})+)|\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const cents = Number(match[1]!.replaceAll(",", "")) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
  return Number.isSafeInteger(cents) ? cents : null;
}

/** Whole cents as a form's dollar value (`1234` -> `12.34`), the inverse of parseDollars. */
export function centsToDollarsInput(cents: number): string {
  return `${Math.trunc(cents / 100)}.${String(Math.abs(cents) % 100).padStart(2, "0")}`;
}
