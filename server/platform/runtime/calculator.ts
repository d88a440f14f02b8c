// The calculator built-in tool: arithmetic only (+ - * / % ^, parentheses, decimals), parsed by a
// small recursive-descent parser, so nothing a model writes is ever executed as code. Numbers are
// exact fractions of big integers, so 0.1 + 0.2 is 0.3 and 2^70 is every digit of it; only a power
// with a fractional exponent leaves exact arithmetic (its result is a float from then on).

export class CalculatorError extends Error {
  override name = "CalculatorError";
}

/** What the tool answers: `exact` when `result` (a JSON number) is not the exact value. */
export interface Calculation {
  result: number;
  /** The exact value, as an integer or decimal string, or a fraction `p/q` that no decimal ends. */
  exact?: string;
}

/** An exact fraction, reduced, denominator positive; or a float once exactness is gone. */
type Value = { n: bigint; d: bigint } | { float: number };

/** Far above any real sum, far below a size that would slow the process: 2^10000 ≈ 10^3010. */
const MAX_BITS = 10_000;

const bits = (value: bigint) => (value < 0n ? -value : value).toString(2).length;

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function fraction(n: bigint, d: bigint): Value {
  if (d === 0n) throw new CalculatorError("division by zero");
  if (d < 0n) [n, d] = [-n, -d];
  const divisor = gcd(n, d) || 1n;
  n /= divisor;
  d /= divisor;
  if (bits(n) > MAX_BITS || bits(d) > MAX_BITS) throw new CalculatorError("number too large");
  return { n, d };
}

/** The fraction as the nearest float: through its decimal text, since n and d may not fit a float. */
function toFloat(value: Value): number {
  if ("float" in value) return value.float;
  return Number(decimal(value, 20));
}

/** The value to `digits` significant digits (the whole integer part at least), cut toward zero: enough for a float. */
function decimal({ n, d }: { n: bigint; d: bigint }, digits: number): string {
  const negative = n < 0n;
  const magnitude = negative ? -n : n;
  const whole = magnitude / d;
  let rest = magnitude % d;
  let text = whole.toString();
  if (rest !== 0n) {
    // Leading zeros after the point do not count toward the significant digits.
    let fractional = "";
    let significant = whole === 0n ? 0 : text.length;
    while (rest !== 0n && significant < digits) {
      rest *= 10n;
      const digit = rest / d;
      rest %= d;
      fractional += digit.toString();
      if (digit !== 0n || significant > 0) significant++;
      if (fractional.length > 4_000) break;
    }
    text += `.${fractional}`;
  }
  return negative ? `-${text}` : text;
}

/** The exact decimal when the denominator's only prime factors are 2 and 5 (it ends), else null. */
function exactDecimal(value: { n: bigint; d: bigint }): string | null {
  let d = value.d;
  let twos = 0;
  let fives = 0;
  while (d % 2n === 0n) [d, twos] = [d / 2n, twos + 1];
  while (d % 5n === 0n) [d, fives] = [d / 5n, fives + 1];
  if (d !== 1n) return null;
  const places = Math.max(twos, fives);
  const scaled = (value.n * 10n ** BigInt(places)) / value.d;
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(places + 1, "0");
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}

function parseNumber(token: string): Value {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(token);
  if (!match) throw new CalculatorError(`unexpected "${token}"`);
  const [, whole, fractional = "", exponentText = "0"] = match;
  const exponent = Number(exponentText) - fractional.length;
  if (Math.abs(exponent) > 3_000) throw new CalculatorError("number too large");
  const digits = BigInt(whole + fractional);
  return exponent >= 0 ? fraction(digits * 10n ** BigInt(exponent), 1n) : fraction(digits, 10n ** BigInt(-exponent));
}

function arithmetic(left: Value, operator: string, right: Value): Value {
  if ("float" in left || "float" in right) {
    const [a, b] = [toFloat(left), toFloat(right)];
    if ((operator === "/" || operator === "%") && b === 0) throw new CalculatorError("division by zero");
    const value = { "+": a + b, "-": a - b, "*": a * b, "/": a / b, "%": a % b }[operator]!;
    return { float: value };
  }
  const { n: a, d: b } = left;
  const { n: c, d: e } = right;
  switch (operator) {
    case "+":
      return fraction(a * e + c * b, b * e);
    case "-":
      return fraction(a * e - c * b, b * e);
    case "*":
      return fraction(a * c, b * e);
    case "/":
      if (c === 0n) throw new CalculatorError("division by zero");
      return fraction(a * e, b * c);
    default: {
      // %: the remainder of a division truncated toward zero, signed like the dividend (as in JavaScript).
      if (c === 0n) throw new CalculatorError("division by zero");
      const quotient = (a * e) / (b * c);
      return fraction(a * e - quotient * c * b, b * e);
    }
  }
}

function power(base: Value, exponent: Value): Value {
  if ("n" in exponent && exponent.d === 1n && "n" in base) {
    const magnitude = exponent.n < 0n ? -exponent.n : exponent.n;
    if (base.n === 0n && exponent.n < 0n) throw new CalculatorError("division by zero");
    // The result's size is known before computing it: refuse what would be too large.
    if (base.n !== 0n && (bits(base.n) - 1 + bits(base.d) - 1) * Number(magnitude) > MAX_BITS) {
      throw new CalculatorError("number too large");
    }
    const [n, d] = [base.n ** magnitude, base.d ** magnitude];
    return exponent.n < 0n ? fraction(d, n) : fraction(n, d);
  }
  return { float: toFloat(base) ** toFloat(exponent) };
}

export function calculate(expression: string): Calculation {
  if (expression.length > 1_000) throw new CalculatorError("expression too long");
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/%^()]|\S/gi) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];

  function primary(): Value {
    const token = take();
    if (token === undefined) throw new CalculatorError("unexpected end of expression");
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new CalculatorError("missing )");
      return value;
    }
    if (token === "-") return arithmetic({ n: 0n, d: 1n }, "-", powered());
    if (token === "+") return powered();
    if (!/^\d/.test(token)) throw new CalculatorError(`unexpected "${token}"`);
    return parseNumber(token);
  }
  function powered(): Value {
    const base = primary();
    // Right-associative: 2^3^2 = 2^(3^2).
    if (peek() === "^") {
      take();
      return power(base, powered());
    }
    return base;
  }
  function product(): Value {
    let value = powered();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const operator = take()!;
      value = arithmetic(value, operator, powered());
    }
    return value;
  }
  function sum(): Value {
    let value = product();
    while (peek() === "+" || peek() === "-") {
      const operator = take()!;
      value = arithmetic(value, operator, product());
    }
    return value;
  }

  const value = sum();
  if (position < tokens.length) throw new CalculatorError(`unexpected "${tokens[position]}"`);
  const result = toFloat(value);
  if (!Number.isFinite(result)) throw new CalculatorError("result is not a finite number");
  if ("float" in value) return { result };
  const exact = exactDecimal(value) ?? `${value.n}/${value.d}`;
  // The JSON number is enough when it reads as the exact value (0.1 + 0.2 reads 0.3); else `exact`
  // carries it (1/3, 2^70, and numbers JSON writes with an exponent).
  return String(result) === exact ? { result } : { result, exact };
}

/** The value as a float (the tool answers calculate's `result` and `exact`). */
export function evaluateExpression(expression: string): number {
  return calculate(expression).result;
}
