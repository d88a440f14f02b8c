"use client";
// A value shown once (a new secret, an invite link): read-only, selected on focus, with a Copy button.
// The "Copied" state belongs to the value shown, so a new value starts at "Copy" again.
import { useState } from "react";
import { Button } from "./button";

export function CopyOnceField({ value, label, copyLabel = "Copy", testId }: { value: string; label: string; copyLabel?: string; testId?: string }) {
  const [copiedValue, setCopiedValue] = useState<string>();
  return (
    <div className="mt-2 flex gap-2">
      <input
        readOnly
        aria-label={label}
        value={value}
        data-testid={testId}
        className="h-10 flex-1 rounded-lg border border-line bg-surface px-3 font-mono text-xs"
        onFocus={(event) => event.currentTarget.select()}
      />
      <Button
        type="button"
        variant="ghost"
        className="border border-line"
        onClick={async () => {
          await navigator.clipboard?.writeText(value).catch(() => {});
          setCopiedValue(value);
        }}
      >
        {copiedValue === value ? "Copied" : copyLabel}
      </Button>
    </div>
  );
}
