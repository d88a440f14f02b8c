import type { ReactNode } from "react";

export function AdminPage({ title, intro, children }: { title: string; intro: string; children: ReactNode }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" className="text-3xl font-semibold tracking-tight">
        {title}
      </h1>
      <p className="mt-2 text-muted">{intro}</p>
      <div className="mt-8 space-y-8">{children}</div>
    </section>
  );
}

export function Refused({ message }: { message: string }) {
  return (
    <p role="alert" className="text-danger">
      {message}
    </p>
  );
}

export const card = "rounded-card border border-line bg-surface p-6 shadow-sm";
export const table = "w-full text-left text-sm";
/**
 * Around a table: a table wider than its card scrolls inside it, not the page. `relative` keeps the
 * absolutely positioned bits inside (a header's sr-only label), which would otherwise widen the page.
 */
export const tableScroll = "relative overflow-x-auto";
export const th = "border-b border-line py-2 pr-4 font-medium text-muted";
export const td = "border-b border-line py-3 pr-4 align-middle";
