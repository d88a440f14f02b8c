import { describe, expect, it } from "vitest";
import { centsToDollarsInput, formatCents, formatMicros, formatUsd, parseDollars } from "@/lib/money";

describe("formatMicros", () => {
  it("shows dollars and cents with thousands grouped", () => {
    expect(formatMicros(12_340_000)).toBe("$12.34");
    expect(formatMicros(1_000_000_000n)).toBe("$1,000.00");
    expect(formatMicros(1_234_567_890_000n)).toBe("$1,234,567.89");
    expect(formatMicros(0)).toBe("$0.00");
  });

  it("rounds to the nearest cent, half up", () => {
    expect(formatMicros(12_345_000)).toBe("$12.35");
    expect(formatMicros(12_344_999)).toBe("$12.34");
    expect(formatMicros(10_000)).toBe("$0.01");
  });

  it("keeps four decimals under a cent, so a small cost does not read as free", () => {
    expect(formatMicros(300)).toBe("$0.0003");
    expect(formatMicros(131)).toBe("$0.0001");
    expect(formatMicros(9_999)).toBe("$0.0100");
    expect(formatMicros(49)).toBe("<$0.0001");
  });

  it("signs debits", () => {
    expect(formatMicros(-2_500_000n)).toBe("-$2.50");
    expect(formatMicros(-300)).toBe("-$0.0003");
  });
});

describe("formatCents and formatUsd", () => {
  it("reads cents and the platform's decimal strings the same way", () => {
    expect(formatCents(1234)).toBe("$12.34");
    expect(formatCents(500_000)).toBe("$5,000.00");
    expect(formatUsd("1.5")).toBe("$1.50");
    expect(formatUsd("0.000131")).toBe("$0.0001");
    expect(formatUsd(undefined)).toBeUndefined();
    expect(formatUsd("")).toBeUndefined();
    expect(formatUsd("abc")).toBeUndefined();
  });
});

describe("parseDollars", () => {
  it("takes whole dollars, one or two decimals, a $ and grouped thousands", () => {
    expect(parseDollars("12")).toBe(1200);
    expect(parseDollars("12.5")).toBe(1250);
    expect(parseDollars(" $12.34 ")).toBe(1234);
    expect(parseDollars("1,234.05")).toBe(123_405);
    expect(parseDollars("0")).toBe(0);
  });

  it("refuses what is not an amount of whole cents instead of rounding it", () => {
    for (const text of ["", "12.345", "-5", "1e3", "abc", "12,34", "$", ".5", "1.2.3"]) expect(parseDollars(text)).toBeNull();
  });

  it("is the inverse of centsToDollarsInput", () => {
    for (const cents of [0, 5, 99, 100, 1234, 123_456_789]) expect(parseDollars(centsToDollarsInput(cents))).toBe(cents);
    expect(centsToDollarsInput(5)).toBe("0.05");
  });
});
