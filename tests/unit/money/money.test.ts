import { describe, expect, it } from "vitest";
import {
  centsToDollarsInput,
  centsToMicros,
  exactTitle,
  formatCents,
  formatMicros,
  formatMicrosExact,
  formatUsd,
  microsToUsd,
  parseDollars,
  usdToMicros,
} from "@inlay/core/money";

describe("formatMicrosExact", () => {
  it("keeps every micro-USD, so the figure a rounded one stands for is there to read", () => {
    expect(formatMicrosExact(473)).toBe("$0.000473");
    expect(formatMicrosExact(3_710n)).toBe("$0.003710");
    expect(formatMicrosExact(1_019_829_700n)).toBe("$1,019.829700");
    expect(formatMicrosExact(0)).toBe("$0.000000");
    expect(formatMicrosExact(-2_500_001n)).toBe("-$2.500001");
    expect(exactTitle(3_710)).toBe("Exactly $0.003710");
  });

  it("writes micro-USD as the platform's decimal USD, and back, exactly", () => {
    expect(microsToUsd(473)).toBe("0.000473");
    expect(microsToUsd(1_234_567_890_123n)).toBe("1234567.890123");
    expect(usdToMicros(microsToUsd(15_131))).toBe(15_131n);
  });
});

describe("formatMicros", () => {
  it("shows dollars and cents with thousands grouped", () => {
    expect(formatMicros(12_340_000)).toBe("$12.34");
    expect(formatMicros(1_000_000_000n)).toBe("$1,000.00");
    expect(formatMicros(1_234_567_890_000n)).toBe("$1,234,567.89");
    expect(formatMicros(0)).toBe("$0.00");
  });

  it("shows a whole number of cents with two decimals, and $0.00 for zero only", () => {
    expect(formatMicros(10_000)).toBe("$0.01");
    expect(formatMicros(0n)).toBe("$0.00");
    expect(formatMicros(1)).not.toBe("$0.00");
  });

  it("keeps four decimals, rounded half up, for any amount that is not whole cents", () => {
    expect(formatMicros(400)).toBe("$0.0004");
    expect(formatMicros(131)).toBe("$0.0001");
    expect(formatMicros(150)).toBe("$0.0002");
    expect(formatMicros(9_999)).toBe("$0.0100");
    expect(formatMicros(12_345_000)).toBe("$12.3450");
    expect(formatMicros(12_344_999)).toBe("$12.3450");
    // A balance a few sub-cent debits below $1,005 no longer reads as $1,005.00.
    expect(formatMicros(1_004_999_600n)).toBe("$1,004.9996");
    expect(formatMicros(1_004_999_999n)).toBe("$1,005.0000");
  });

  it("shows a non-zero amount that rounds to nothing as <$0.0001", () => {
    expect(formatMicros(49)).toBe("<$0.0001");
    expect(formatMicros(1)).toBe("<$0.0001");
    expect(formatMicros(50)).toBe("$0.0001");
  });

  it("signs debits", () => {
    expect(formatMicros(-2_500_000n)).toBe("-$2.50");
    expect(formatMicros(-300)).toBe("-$0.0003");
    expect(formatMicros(-7)).toBe("-<$0.0001");
  });
});

describe("usdToMicros", () => {
  it("reads the platform's six-decimal strings exactly, with no float in between", () => {
    expect(usdToMicros("0.000131")).toBe(131n);
    expect(usdToMicros("0.000400")).toBe(400n);
    expect(usdToMicros("12")).toBe(12_000_000n);
    expect(usdToMicros("1.5")).toBe(1_500_000n);
    // Past Number's exact integers.
    expect(usdToMicros("90071992547.409931")).toBe(90_071_992_547_409_931n);
  });

  it("rounds digits past the sixth up, and refuses what is not an amount", () => {
    expect(usdToMicros("0.0000011")).toBe(2n);
    expect(usdToMicros("0.0000010")).toBe(1n);
    for (const bad of ["", "abc", "-1", "1e-6", ".5", "1."]) expect(usdToMicros(bad)).toBeNull();
  });

  it("centsToMicros scales a cap exactly", () => {
    expect(centsToMicros(100)).toBe(1_000_000);
    expect(centsToMicros(1_000_000_000)).toBe(10_000_000_000_000);
  });
});

describe("formatCents and formatUsd", () => {
  it("reads cents and the platform's decimal strings the same way", () => {
    expect(formatCents(1234)).toBe("$12.34");
    expect(formatCents(500_000)).toBe("$5,000.00");
    expect(formatUsd("1.5")).toBe("$1.50");
    expect(formatUsd("0.000131")).toBe("$0.0001");
    expect(formatUsd("0.000400")).toBe("$0.0004");
    expect(formatUsd("-2.500000")).toBe("-$2.50");
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
