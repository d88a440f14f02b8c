// Cost arithmetic: catalogue prices (USD per million tokens) to micro-USD, and money formatting.
import { describe, expect, it } from "vitest";
import { billingPeriod, usdDisplay, usdExact } from "@/server/platform/services/billing/billing";
import { callCostMicros, priceUnits } from "@/server/platform/models/catalog";

const pricing = (input: string, output: string, cacheRead = "0") => ({
  input_per_million: input,
  output_per_million: output,
  cache_read_per_million: cacheRead,
});

describe("callCostMicros", () => {
  it("is tokens times the price per million, exactly, in micro-USD", () => {
    expect(callCostMicros(pricing("2.00", "8.00"), { inputTokens: 1000, outputTokens: 500, cacheReadTokens: 0 })).toBe(6000n);
  });

  it("rounds a fractional total up once per call", () => {
    // 3 × 0.15 + 1 × 0.6 = 1.05 micro-USD → 2
    expect(callCostMicros(pricing("0.15", "0.60"), { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0 })).toBe(2n);
    expect(callCostMicros(pricing("0.15", "0.60"), { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 })).toBe(0n);
  });

  it("prices cache reads at the cache price, out of the input tokens", () => {
    // 600 uncached × 2 + 400 cached × 0.5 + 0 output = 1400
    expect(callCostMicros(pricing("2.00", "8.00", "0.50"), { inputTokens: 1000, outputTokens: 0, cacheReadTokens: 400 })).toBe(1400n);
  });

  it("reads prices with up to six decimals and refuses anything else", () => {
    expect(priceUnits("0.075")).toBe(75_000n);
    expect(priceUnits("15")).toBe(15_000_000n);
    expect(() => priceUnits("0.0000001")).toThrow();
    expect(() => priceUnits("-1")).toThrow();
  });
});

describe("money formatting and periods", () => {
  it("writes exact and display dollars", () => {
    expect(usdExact(1_234_567n)).toBe("1.234567");
    expect(usdExact(-5n)).toBe("-0.000005");
    expect(usdDisplay(4_994_999n)).toBe("4.99");
    expect(usdDisplay(4_995_000n)).toBe("5.00");
    expect(usdDisplay(0n)).toBe("0.00");
  });

  it("bills by calendar month in UTC", () => {
    expect(billingPeriod(new Date("2024-02-29T23:59:59Z"))).toEqual({
      start: new Date("2024-02-01T00:00:00Z"),
      end: new Date("2024-03-01T00:00:00Z"),
    });
    expect(billingPeriod(new Date("2024-12-31T12:00:00Z")).end).toEqual(new Date("2025-01-01T00:00:00Z"));
  });
});
