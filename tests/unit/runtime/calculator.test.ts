import { describe, expect, it } from "vitest";
import { CalculatorError, calculate, evaluateExpression } from "@/server/platform/runtime/calculator";

describe("evaluateExpression", () => {
  it("follows precedence, associativity and parentheses", () => {
    expect(evaluateExpression("6*7")).toBe(42);
    expect(evaluateExpression("1 + 2 * 3")).toBe(7);
    expect(evaluateExpression("(1 + 2) * 3")).toBe(9);
    expect(evaluateExpression("2^3^2")).toBe(512);
    expect(evaluateExpression("-2^2")).toBe(-4);
    expect(evaluateExpression("10 % 4 - 0.5")).toBe(1.5);
    expect(evaluateExpression("1.5e2 / 3")).toBe(50);
  });

  it("refuses anything that is not arithmetic", () => {
    for (const bad of ["process.exit()", "1 +", "(1", "2 ** 2", "1/0", "abc", ""]) {
      expect(() => evaluateExpression(bad), bad).toThrow(CalculatorError);
    }
  });

  it("refuses numbers too large to work with exactly, before computing them", () => {
    expect(() => calculate("10^100000")).toThrow("number too large");
    expect(() => calculate("1e5000")).toThrow("number too large");
    expect(() => calculate("10^400")).toThrow("result is not a finite number");
    expect(() => calculate("0^-1")).toThrow("division by zero");
  });
});

describe("calculate", () => {
  it("is exact where floats are not", () => {
    expect(calculate("0.1 + 0.2")).toEqual({ result: 0.3 });
    expect(calculate("1.1 * 3")).toEqual({ result: 3.3 });
    expect(calculate("0.3 - 0.1")).toEqual({ result: 0.2 });
    expect(calculate("(0.1 + 0.7) * 10")).toEqual({ result: 8 });
    expect(calculate("2^-2")).toEqual({ result: 0.25 });
    expect(calculate("-7 % 3")).toEqual({ result: -1 });
    expect(calculate("7.5 % 2")).toEqual({ result: 1.5 });
  });

  it("adds the exact value when the number is not it", () => {
    expect(calculate("1/3")).toEqual({ result: 1 / 3, exact: "1/3" });
    expect(calculate("2^70")).toEqual({ result: 2 ** 70, exact: "1180591620717411303424" });
    expect(calculate("9007199254740993 + 0")).toEqual({ result: 9007199254740992, exact: "9007199254740993" });
    expect(calculate("-1/8")).toEqual({ result: -0.125 });
  });

  it("leaves exact arithmetic only for a fractional exponent", () => {
    expect(calculate("2^0.5")).toEqual({ result: Math.SQRT2 });
    expect(calculate("4^0.5 + 1")).toEqual({ result: 3 });
  });
});
