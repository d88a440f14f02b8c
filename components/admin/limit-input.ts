// Limit fields: an empty box means "no limit" (null); anything else must parse as a number, which the
// shared zod contract then checks (whole, 0 or more, within range). Cost limits are stored in cents but
// typed and shown in dollars.
import { centsToDollarsInput, formatCents, parseDollars } from "@inlay/core/money";

export const readLimit = (form: FormData, name: string): number | null => {
  const raw = String(form.get(name) ?? "").trim();
  return raw === "" ? null : Number(raw);
};

export const showLimit = (value: number | null) => (value === null ? "" : String(value));
export const describeLimit = (value: number | null) => (value === null ? "no limit" : value.toLocaleString("en"));

/**
 * A cost box in dollars as cents: null when empty, NaN when it is not an amount (the form says so with
 * COST_LIMIT_FORMAT instead of rounding); the zod contract then checks the range.
 */
export const readCostLimit = (form: FormData, name: string): number | null => {
  const raw = String(form.get(name) ?? "").trim();
  if (raw === "") return null;
  return parseDollars(raw) ?? Number.NaN;
};

export const COST_LIMIT_FORMAT = "Enter dollars and cents, e.g. 12.50.";

/** Field errors for cost boxes that held no amount (readCostLimit gave NaN). */
export const costFormatErrors = (values: Record<string, number | null>, names: string[]): Record<string, string> =>
  Object.fromEntries(names.filter((name) => Number.isNaN(values[name])).map((name) => [name, COST_LIMIT_FORMAT]));

export const showCostLimit = (cents: number | null) => (cents === null ? "" : centsToDollarsInput(cents));
export const describeCostLimit = (cents: number | null) => (cents === null ? "no limit" : formatCents(cents));
