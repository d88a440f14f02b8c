// The calculator built-in tool: arithmetic only (+ - * / % ^, parentheses, decimals), parsed by a
// small recursive-descent parser, so nothing a model writes is ever executed as code.

export class CalculatorError extends Error {
  override name = "CalculatorError";
}

export function evaluateExpression(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/%^()]|\S/gi) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];

  function primary(): number {
    const token = take();
    if (token === undefined) throw new CalculatorError("unexpected end of expression");
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new CalculatorError("missing )");
      return value;
    }
    if (token === "-") return -power();
    if (token === "+") return power();
    const value = Number(token);
    if (Number.isNaN(value)) throw new CalculatorError(`unexpected "${token}"`);
    return value;
  }
  function power(): number {
    const base = primary();
    // Right-associative: 2^3^2 = 2^(3^2).
    if (peek() === "^") {
      take();
      return base ** power();
    }
    return base;
  }
  function product(): number {
    let value = power();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const operator = take();
      const right = power();
      if ((operator === "/" || operator === "%") && right === 0) throw new CalculatorError("division by zero");
      value = operator === "*" ? value * right : operator === "/" ? value / right : value % right;
    }
    return value;
  }
  function sum(): number {
    let value = product();
    while (peek() === "+" || peek() === "-") {
      value = take() === "+" ? value + product() : value - product();
    }
    return value;
  }

  if (expression.length > 1_000) throw new CalculatorError("expression too long");
  const value = sum();
  if (position < tokens.length) throw new CalculatorError(`unexpected "${tokens[position]}"`);
  if (!Number.isFinite(value)) throw new CalculatorError("result is not a finite number");
  return value;
}
