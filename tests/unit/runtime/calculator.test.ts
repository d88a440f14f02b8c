import { describe, expect, it } from "vitest";
import { CalculatorError, evaluateExpression } from "@/server/platform/runtime/calculator";

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
});
