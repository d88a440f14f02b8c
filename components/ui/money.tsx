// An amount of micro-USD as the console shows it: rounded (packages/core/src/money.ts formatMicros), with the exact
// figure on hover, so a rounded amount never hides what was charged.
import type { HTMLAttributes } from "react";
import { exactTitle, formatMicros } from "@inlay/core/money";

export function Money({ micros, ...rest }: { micros: number | bigint } & Omit<HTMLAttributes<HTMLSpanElement>, "title" | "children">) {
  return (
    <span title={exactTitle(micros)} {...rest}>
      {formatMicros(micros)}
    </span>
  );
}
