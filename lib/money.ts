// Money for people: every amount the console shows goes through here, so the balance (micro-USD), caps
// and limits (cents) and the platform's decimal strings all read the same way: `$1,234.56`. Isomorphic
// (no Node APIs): client components use it. Whole-number math on bigint, so no float rounding creeps in.

const MICROS_PER_CENT = 10_000n;
const MICROS_PER_DOLLAR = 1_000_000n;

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function toMicros(value: number | bigint): bigint {
  return typeof value === "bigint" ? value : BigInt(Math.round(value));
}

/**
 * `$12.34` from micro-USD. An amount under a cent (one run's cost) keeps four decimals (`$0.0003`),
 * since `$0.00` would read as free; under $0.0001 it is `<$0.0001`.
 */
export function formatMicros(value: number | bigint): string {
  const micros = toMicros(value);
  const sign = micros < 0n ? "-" : "";
  const abs = micros < 0n ? -micros : micros;
  if (abs > 0n && abs < MICROS_PER_CENT) {
    const tenThousandths = (abs + 50n) / 100n; // round half up to $0.0001
    if (tenThousandths === 0n) return `${sign}<$0.0001`;
    return `${sign}$0.${String(tenThousandths).padStart(4, "0")}`;
  }
  const cents = (abs + MICROS_PER_CENT / 2n) / MICROS_PER_CENT;
  const dollars = cents / 100n;
  return `${sign}$${groupThousands(String(dollars))}.${String(cents % 100n).padStart(2, "0")}`;
}

/** `$12.34` from whole cents (caps, limits, plan prices). */
export function formatCents(cents: number): string {
  return formatMicros(toMicros(cents) * MICROS_PER_CENT);
}

/** `$12.34` from the platform's decimal USD strings (`cost_usd`, `balance_usd`); undefined if not a number. */
export function formatUsd(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const amount = Number(value);
  if (value.trim() === "" || !Number.isFinite(amount)) return undefined;
  return formatMicros(Math.round(amount * Number(MICROS_PER_DOLLAR)));
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
