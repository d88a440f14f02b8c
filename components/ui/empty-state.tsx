import type { ReactNode } from "react";

/**
 * What a list or chart shows while it has nothing: what is missing, and what would fill it. One look
 * for every empty list in the console.
 */
export function EmptyState({ title, children, className = "" }: { title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={`rounded-lg border border-dashed border-line px-4 py-6 text-center ${className}`} data-testid="empty-state">
      <p className="text-sm font-medium">{title}</p>
      {children ? <p className="mx-auto mt-1 max-w-prose text-sm text-muted">{children}</p> : null}
    </div>
  );
}
